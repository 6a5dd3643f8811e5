#!/usr/bin/env bash
# Runs every libFuzzer target of a clang fuzzing build (fuzz/README.md) for
# SECONDS each, from its seeds in fuzz/seeds/<target>, in a fresh corpus.
#
#   scripts/fuzz.sh BUILD_DIR SECONDS [libFuzzer flags...]
#
#   scripts/fuzz.sh build-fuzz 60 -seed=1   # what CI runs, 12x further
#   scripts/fuzz.sh build-fuzz 300          # a campaign with random seeds
#
# Crash inputs are written to the current directory (crash-*); the log of a
# failing target is printed. Exits 1 if any target failed.
set -u
if [[ $# -lt 2 ]]; then
  sed -n '2,12p' "$0" >&2
  exit 2
fi
build=$1
seconds=$2
shift 2
root=$(cd "$(dirname "$0")/.." && pwd)
failed=0
for fuzzer in "$build"/fuzz/*_fuzzer; do
  name=$(basename "$fuzzer" _fuzzer)
  corpus=$(mktemp -d)
  log="$corpus.log"
  if "$fuzzer" -max_total_time="$seconds" -rss_limit_mb=2048 "$@" "$corpus" \
      "$root/fuzz/seeds/$name" >"$log" 2>&1; then
    echo "$name: $(grep -E '^Done [0-9]+ runs' "$log")"
  else
    cat "$log"
    echo "fuzzer $name failed"
    failed=1
  fi
  rm -rf "$corpus" "$log"
done
exit "$failed"
