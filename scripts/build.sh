#!/usr/bin/env bash
# Configures and builds one variant: scripts/build.sh [release|asan]. Prints the build folder.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
variant="${1:-release}"
case "$variant" in
  release) dir="$here/build"; flags=() ;;
  asan) dir="$here/build-asan"; flags=(-DINFERGATE_SANITIZE=ON -DINFERGATE_BENCHMARKS=OFF) ;;
  *) echo "usage: scripts/build.sh [release|asan]" >&2; exit 2 ;;
esac
cmake -S "$here" -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo "${flags[@]}" >&2
ninja -C "$dir" -j2 >&2
echo "$dir"
