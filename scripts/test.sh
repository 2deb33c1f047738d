#!/usr/bin/env bash
# Fresh machine to green: installs dependencies, then builds and runs the whole suite (unit,
# integration, end-to-end) twice: a normal build and an AddressSanitizer + UBSan build; lints
# (clang-format, clang-tidy) after the normal build.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$here/scripts/install-deps.sh"
# A fresh machine builds everything once, so batches of files compile faster than one at a time.
export INFERGATE_UNITY=ON
export ASAN_OPTIONS="detect_leaks=1:abort_on_error=1"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
for variant in release asan; do
  echo "=== $variant build ==="
  started=$SECONDS
  dir="$("$here/scripts/build.sh" "$variant")"
  echo "=== $variant build took $((SECONDS - started)) s ==="
  ctest --test-dir "$dir" --output-on-failure -j2 --timeout 600
  echo "=== $variant tests done at $((SECONDS - started)) s ==="
  if [ "$variant" = release ]; then
    "$here/scripts/lint.sh" "$dir"
    echo "=== lint done at $((SECONDS - started)) s ==="
  fi
done
echo "report screenshot from the browser test: $here/build/test-artifacts/report.png"
