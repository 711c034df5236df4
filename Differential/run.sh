#!/usr/bin/env bash
# The differential check: random pipelines run on Untangle and on OpenCombine 0.14.0, their event logs compared seed
# by seed (compare.py says what counts as a difference and what fails the run). See README.md.
#
# Usage: Differential/run.sh [FIRST-SEED] [COUNT]     (default: seeds 0 to 4,999)
set -euo pipefail
cd "$(dirname "$0")"
first="${1:-0}"
count="${2:-5000}"
swift build -c release --product diff-untangle
swift build -c release --product diff-opencombine
bin="$(swift build -c release --show-bin-path)"
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT

# Deterministic hashing: OpenCombine keeps a subject's subscribers in a Set (as Apple does), whose order would
# otherwise change from one run to the next.
export SWIFT_DETERMINISTIC_HASHING=1
export OUT="$out"

# Untangle must run every seed: a stop is a failure.
"$bin/diff-untangle" "$first" "$count" >"$out/untangle.log"

# OpenCombine stops the program on some pipelines (its own preconditions, e.g. a completion before a subscription in
# FilterProducer); such a seed is recorded as a stop and the run goes on with the next one.
: >"$out/opencombine.log"
next="$first"
end=$((first + count))
while [ "$next" -lt "$end" ]; do
    # A child bash waits for the program, so that its report of the stop goes to /dev/null, not into the log.
    if bash -c '"$0" "$@" >"$OUT/chunk.log"' "$bin/diff-opencombine" "$next" $((end - next)) 2>/dev/null; then
        cat "$out/chunk.log" >>"$out/opencombine.log"
        break
    fi
    stopped="$(grep -E "^== seed [0-9]+$" "$out/chunk.log" | tail -1 | cut -d" " -f3 || true)"
    stopped="${stopped:-$next}"
    # Keep the complete seeds before the one that stopped; record that one as a stop.
    awk -v s="$stopped" '/^== seed [0-9]+$/ { if ($3 == s) exit } { print }' "$out/chunk.log" >>"$out/opencombine.log"
    printf '== seed %s\n(OpenCombine stopped the program)\n' "$stopped" >>"$out/opencombine.log"
    next=$((stopped + 1))
done

cp "$out/untangle.log" "$out/opencombine.log" "${DIFFERENTIAL_KEEP:-$out}/" 2>/dev/null || true
python3 compare.py "$out/untangle.log" "$out/opencombine.log" --known known-differences.txt --show "${DIFFERENTIAL_SHOW:-10}"
