#!/usr/bin/env bash
# Quick start: installs missing Debian packages, builds the SDK and the CLI,
# and runs the CLI on the example cluster embedded in it.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build --target karpenter_cli
build/tools/karpenter/karpenter inspect
