#!/usr/bin/env bash
# Quick start: installs missing Debian packages, builds the SDK and the CLI,
# and simulates the bundled rollout scenario (examples/scenarios/rollout.yaml):
# the last lines of the timeline, the summary, and a chart in build/rollout.svg.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build --target karpenter_cli
build/tools/karpenter/karpenter simulate --svg build/rollout.svg | tail -n 20
echo "Nodes by state over time: build/rollout.svg"
