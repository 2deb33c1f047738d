#!/usr/bin/env bash
# clang-format (no changes allowed) over every tracked C++ file, and clang-tidy (.clang-tidy;
# warnings are errors) over src/. Needs a configured build folder for compile_commands.json
# (default: build).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${1:-$here/build}"
cd "$here"
git ls-files '*.cpp' '*.hpp' | xargs clang-format --dry-run --Werror
run-clang-tidy-14 -p "$build" -j 2 -quiet "$here/src/.*\.cpp$" > "$build/clang-tidy.log" 2>&1 || {
  grep -E 'warning:|error:' "$build/clang-tidy.log" | sort -u >&2
  echo "clang-tidy found problems (full log: $build/clang-tidy.log)" >&2
  exit 1
}
echo "lint: clang-format and clang-tidy clean"
