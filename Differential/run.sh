#!/usr/bin/env bash
# The differential check: random pipelines run on Untangle and on OpenCombine 0.14.0, their event logs compared seed
# by seed (compare.py says what counts as a difference and what fails the run). See README.md.
#
# Usage: Differential/run.sh                          every mode, its default seeds: the synchronous pipelines 0 to
#                                                     4,999, the time pipelines (--time) 0 to 1,999 and the fan-in
#                                                     pipelines (--fanin) 0 to 1,999
#        Differential/run.sh FIRST-SEED COUNT         the synchronous pipelines only
#        Differential/run.sh --time FIRST-SEED COUNT  the time pipelines only (TimePipelines.swift)
#        Differential/run.sh --fanin FIRST-SEED COUNT the fan-in pipelines only (FanInPipelines.swift)
set -euo pipefail
cd "$(dirname "$0")"
fanin=""
if [ "${1:-}" = "--time" ]; then
    sync=""
    time="${2:-0} ${3:-2000}"
elif [ "${1:-}" = "--fanin" ]; then
    sync=""
    time=""
    fanin="${2:-0} ${3:-2000}"
elif [ $# -gt 0 ]; then
    sync="$1 ${2:-5000}"
    time=""
else
    sync="0 5000"
    time="0 2000"
    fanin="0 2000"
fi
swift build -c release --product diff-untangle
swift build -c release --product diff-opencombine
bin="$(swift build -c release --show-bin-path)"
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT

# Deterministic hashing: OpenCombine keeps a subject's subscribers in a Set (as Apple does), whose order would
# otherwise change from one run to the next.
export SWIFT_DETERMINISTIC_HASHING=1
export OUT="$out"

# Runs one mode ("", --time or --fanin) over FIRST COUNT into $out/untangle$MODE.log and $out/opencombine$MODE.log.
run_mode() {
    local mode="$1" first="$2" count="$3"
    local ours="$out/untangle$mode.log" theirs="$out/opencombine$mode.log"
    # Untangle must run every seed: a stop is a failure.
    "$bin/diff-untangle" $mode "$first" "$count" >"$ours"

    # OpenCombine stops the program on some pipelines (its own preconditions, e.g. a completion before a subscription
    # in FilterProducer); such a seed is recorded as a stop and the run goes on with the next one.
    : >"$theirs"
    local next="$first" end=$((first + count)) stopped
    while [ "$next" -lt "$end" ]; do
        # A child bash waits for the program, so that its report of the stop goes to /dev/null, not into the log.
        if bash -c '"$0" "$@" >"$OUT/chunk.log"' "$bin/diff-opencombine" $mode "$next" $((end - next)) 2>/dev/null; then
            cat "$out/chunk.log" >>"$theirs"
            break
        fi
        stopped="$(grep -E "^== seed [0-9]+$" "$out/chunk.log" | tail -1 | cut -d" " -f3 || true)"
        stopped="${stopped:-$next}"
        # Keep the complete seeds before the one that stopped; record that one as a stop.
        awk -v s="$stopped" '/^== seed [0-9]+$/ { if ($3 == s) exit } { print }' "$out/chunk.log" >>"$theirs"
        printf '== seed %s\n(OpenCombine stopped the program)\n' "$stopped" >>"$theirs"
        next=$((stopped + 1))
    done
    cp "$ours" "$theirs" "${DIFFERENTIAL_KEEP:-$out}/" 2>/dev/null || true
}

status=0
if [ -n "$sync" ]; then
    run_mode "" $sync
    echo "synchronous pipelines, seeds $sync (first, count):"
    python3 compare.py "$out/untangle.log" "$out/opencombine.log" --known known-differences.txt \
        --show "${DIFFERENTIAL_SHOW:-10}" || status=1
fi
if [ -n "$time" ]; then
    run_mode --time $time
    echo "time pipelines, seeds $time (first, count):"
    python3 compare.py "$out/untangle--time.log" "$out/opencombine--time.log" --known known-differences-time.txt \
        --show "${DIFFERENTIAL_SHOW:-10}" || status=1
fi
if [ -n "$fanin" ]; then
    run_mode --fanin $fanin
    echo "fan-in pipelines, seeds $fanin (first, count):"
    python3 compare.py "$out/untangle--fanin.log" "$out/opencombine--fanin.log" --known known-differences-fanin.txt \
        --show "${DIFFERENTIAL_SHOW:-10}" || status=1
fi
exit "$status"
