#!/usr/bin/env bash
# Builds the SDK and runs the whole test suite (one ctest entry per Catch2 case).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
# Warnings are errors here (KARPENTER_WERROR), never in a user's own build.
# KARPENTER_CMAKE_ARGS adds configure options (a compiler launcher, say).
# shellcheck disable=SC2086
# Line tables only (-g1): enough for backtraces and valgrind's file:line,
# and a third cheaper to compile than full debug information.
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -g1 -DNDEBUG" \
  -DKARPENTER_WERROR=ON ${KARPENTER_CMAKE_ARGS:-} >/dev/null
cmake --build "$build"
# catch_discover_tests silently drops every case after one whose name CMake
# cannot carry (a '[' in it, say); refuse to pass with cases left unregistered.
# (Catch2 v2 exits with the number of cases it lists, hence the "|| true".)
names=$("$build/tests/karpenter_tests" --list-test-names-only || true)
cases=$(grep -c . <<<"$names")
registered=$(ctest --test-dir "$build" -N -E '^(example|render|sim|docs)/' |
  sed -n 's/^Total Tests: //p')
if [ "$cases" != "$registered" ]; then
  echo "ctest registered $registered of $cases Catch2 test cases" >&2
  exit 1
fi
ctest --test-dir "$build" --output-on-failure -j"$(nproc)"
