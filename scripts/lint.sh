#!/usr/bin/env bash
# clang-format (no changes allowed) over every tracked C++ file, and clang-tidy (.clang-tidy;
# warnings are errors) over src/. Needs a configured build folder for compile_commands.json
# (default: build).
#
# In a unity build (INFERGATE_UNITY=ON) the compile database names the build's unity_N.cxx files,
# each including a batch of src/ files: clang-tidy reads each batch's headers once (a tenth of the
# time) and reports what it finds at the src/ file and line. Their includes of .cpp files are the
# build's own, so bugprone-suspicious-include is left out there.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="$(cd "${1:-$here/build}" && pwd)"
cd "$here"
git ls-files '*.cpp' '*.hpp' | xargs clang-format --dry-run --Werror
checks=()
if grep -q '/Unity/unity_.*\.cxx"' "$build/compile_commands.json"; then
  checks=(-checks=-bugprone-suspicious-include)
fi
run-clang-tidy-14 -p "$build" -j 2 -quiet "${checks[@]}" "^($here/src/.*\.cpp|$build/src/.*\.cxx)$" \
    > "$build/clang-tidy.log" 2>&1 || {
  grep -E 'warning:|error:' "$build/clang-tidy.log" | sort -u >&2
  echo "clang-tidy found problems (full log: $build/clang-tidy.log)" >&2
  exit 1
}
echo "lint: clang-format and clang-tidy clean"
