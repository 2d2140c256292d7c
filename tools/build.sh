#!/usr/bin/env bash
# Installs the Debian packages trainsim needs (only those missing), then configures and
# builds a Release tree in ./build. Run as root on Debian 12; safe to run again.
#   tools/build.sh          the simulator alone (trainsim): what the README's first command runs
#   tools/build.sh --tests  the simulator and the whole test suite (GoogleTest, and Chromium for
#                           the HTML report's browser test): what the README's second command runs
set -euo pipefail
cd "$(dirname "$0")/.."

tests=OFF
case "${1:-}" in
  "") ;;
  --tests) tests=ON ;;
  *) echo "build.sh: unknown option '$1' (use --tests to build the test suite too)" >&2; exit 2 ;;
esac

packages=(
  cmake g++ make pkg-config
  libsimgrid-dev libboost-graph-dev libspdlog-dev libfmt-dev
  libyaml-cpp-dev libcli11-dev nlohmann-json3-dev
)
if [[ $tests == ON ]]; then
  packages+=(
    libgtest-dev
    chromium # tests/tools/browser_test.cpp renders the HTML report headless (~350 MB, ~20 s to install)
  )
fi
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "build.sh: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DTRAINSIM_BUILD_TESTS=$tests
if [[ $tests == ON ]]; then
  cmake --build build -j"$(nproc)"
else
  cmake --build build -j"$(nproc)" --target trainsim
fi
