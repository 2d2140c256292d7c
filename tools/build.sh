#!/usr/bin/env bash
# Installs the Debian packages trainsim needs (only those missing), then configures and
# builds a Release tree in ./build. Run as root on Debian 12; safe to run again.
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(
  cmake g++ make pkg-config
  libsimgrid-dev libboost-graph-dev libspdlog-dev libfmt-dev
  libyaml-cpp-dev libcli11-dev nlohmann-json3-dev libgtest-dev
  chromium # tests/tools/browser_test.cpp renders the HTML report headless (~350 MB, ~20 s to install)
)
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

cmake -S . -B build -DCMAKE_BUILD_TYPE=Release
cmake --build build -j"$(nproc)"
