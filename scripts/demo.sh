#!/usr/bin/env bash
# Fresh machine to demo: installs dependencies, builds, and benchmarks the built-in simulator at
# concurrency 1, 4, 16 and 64.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$here/scripts/install-deps.sh"
dir="$("$here/scripts/build.sh" release)"
exec "$dir/src/cli/infergate" demo "$@"
