#!/usr/bin/env bash
# Installs every build, test and benchmark dependency from Debian's packages. Idempotent: packages
# already present are skipped by apt-get, and the npm test client is installed only when missing.
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config
  libboost1.81-dev libboost-json1.81-dev
  libssl-dev libsqlite3-dev libhiredis-dev libyaml-cpp-dev libspdlog-dev libfmt-dev libcli11-dev
  libgtest-dev libgmock-dev libbenchmark-dev prometheus-cpp-dev prometheus
  clang-format clang-tidy
  python3-aiohttp redis-server chromium
  curl openssl
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
# Node.js may come from another source that bundles npm (and conflicts with Debian's npm package).
command -v npm >/dev/null 2>&1 || missing+=(nodejs npm)
if [ ${#missing[@]} -gt 0 ]; then
  sudo_cmd=""
  [ "$(id -u)" -eq 0 ] || sudo_cmd="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $sudo_cmd apt-get update -qq
  $sudo_cmd apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
if [ -f "$here/tests/e2e/package.json" ] && { [ ! -d "$here/tests/e2e/node_modules/openai" ] ||
  [ ! -d "$here/tests/e2e/node_modules/groq-sdk" ]; }; then
  (cd "$here/tests/e2e" && npm install --no-audit --no-fund --silent)
fi
