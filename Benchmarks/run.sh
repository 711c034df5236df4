#!/usr/bin/env bash
# Untangle vs OpenCombine vs plain Swift: builds the three bench executables in release mode, runs every workload
# in separate processes, alternating libraries (untangle, opencombine, baseline, untangle, ...), for several rounds,
# and prints a Markdown table of medians with Untangle/OpenCombine and Untangle/baseline ratios.
#
#   ./run.sh                        5 rounds, the issue's event counts
#   ./run.sh --rounds 3 --quick     3 rounds, counts / 100 (a fast check)
#   ./run.sh --only subject-map-filter-sink,fanout-1000
#   ./run.sh --instructions         instructions per event under valgrind's callgrind (single-threaded workloads,
#                                   counts / 100, one round: instruction counts are deterministic)
#   ./run.sh --no-build             use the executables already built
#   ./run.sh --scratch-path DIR     build into DIR instead of .build (e.g. to keep an older build for comparison)
#   ./run.sh --table FILE           print the table for raw results saved earlier (results/*.txt)
#   ./run.sh --single-threaded-process   do not start the idle helper thread each bench process starts by default
#                                   (glibc's mutexes skip their atomic instructions in a one-thread process; see
#                                   benchMain in Sources/BenchSupport)
#
# Raw results go to results/<timestamp>.txt (one RESULT line per process).
set -euo pipefail
args="$*"
cd "${BENCH_DIR:-$(dirname "$0")}"

rounds=5
quick=""
mode=time
only=""
build=1
scratch=.build
table=""
process_flag=""
while [[ $# -gt 0 ]]; do
    case "$1" in
        --rounds) rounds="$2"; shift 2 ;;
        --quick) quick="--quick"; shift ;;
        --instructions) mode=instructions; shift ;;
        --only) only="$2"; shift 2 ;;
        --no-build) build=0; shift ;;
        --scratch-path) scratch="$2"; shift 2 ;;
        --table) table="$2"; shift 2 ;;
        --single-threaded-process) process_flag="--single-threaded-process"; shift ;;
        -h|--help) sed -n '2,18p' "$0"; exit 0 ;;
        *) echo "run.sh: unknown option $1" >&2; exit 2 ;;
    esac
done

# Medians per (library, workload) and the table.
print_table() {
local raw="$1" unit="ns/event"
[[ "$raw" == *instructions* ]] && unit="instructions/event"
echo "| workload | Untangle $unit | OpenCombine $unit | baseline $unit | Untangle/OpenCombine | Untangle/baseline | allocs/event U / OC / base | bytes/subscription U / OC / base |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|"
for name in $(awk '{ for (i = 1; i <= NF; i++) if ($i ~ /^name=/) { sub("name=", "", $i); if (!seen[$i]++) print $i } }' "$raw"); do
    awk -v name="$name" '
        function field(key,   i, kv) {
            for (i = 1; i <= NF; i++) { split($i, kv, "="); if (kv[1] == key) return kv[2] }
            return ""
        }
        field("name") == name {
            lib = field("library"); k = count[lib]++
            ns[lib, k] = field("ns"); allocs[lib] = field("allocs"); bytes[lib] = field("bytes")
        }
        function median(lib,   n, i, j, t, a) {
            n = count[lib]; if (n == 0) return ""
            for (i = 0; i < n; i++) a[i] = ns[lib, i] + 0
            for (i = 1; i < n; i++) { t = a[i]; for (j = i - 1; j >= 0 && a[j] > t; j--) a[j + 1] = a[j]; a[j + 1] = t }
            return (n % 2) ? a[int(n / 2)] : (a[n / 2 - 1] + a[n / 2]) / 2
        }
        function show(v) { return v == "" ? "n/a" : sprintf("%.1f", v) }
        function ratio(a, b) { return (a == "" || b == "" || b == 0) ? "n/a" : sprintf("%.2f", a / b) }
        function or_na(v) { return v == "" ? "n/a" : v }
        END {
            u = median("untangle"); o = median("opencombine"); b = median("baseline")
            if (bytes["untangle"] != "" && bytes["untangle"] != "-") {
                # memory workload: the ratios compare bytes per live subscription
                ru = ratio(bytes["untangle"], bytes["opencombine"]) " (bytes)"
                rb = ratio(bytes["untangle"], bytes["baseline"]) " (bytes)"
            } else {
                ru = ratio(u, o); rb = ratio(u, b)
            }
            printf "| %s | %s | %s | %s | %s | %s | %s / %s / %s | %s / %s / %s |\n", name, show(u), show(o), show(b),
                ru, rb, or_na(allocs["untangle"]), or_na(allocs["opencombine"]), or_na(allocs["baseline"]),
                or_na(bytes["untangle"]), or_na(bytes["opencombine"]), or_na(bytes["baseline"])
        }' "$raw"
done
}

if [[ -n "$table" ]]; then
    print_table "$table"
    exit 0
fi

if [[ $build == 1 ]]; then
    swift build -c release --scratch-path "$scratch" >&2
fi
bin="$(swift build -c release --scratch-path "$scratch" --show-bin-path)"
libraries=(untangle opencombine baseline)

mkdir -p results
raw="results/$(date +%Y%m%d-%H%M%S)-$mode.txt"
: > "$raw"

# Workloads: the baseline has every one; each library lists the ones it can run.
declare -A has
for library in "${libraries[@]}"; do
    while read -r name kind; do
        has["$library/$name"]="$kind"
    done < <("$bin/bench-$library" --list)
done
workloads=()
while read -r name kind; do
    if [[ -n "$only" && ",$only," != *",$name,"* ]]; then continue; fi
    if [[ $mode == instructions && $kind != single ]]; then continue; fi
    workloads+=("$name")
done < <("$bin/bench-baseline" --list)

if [[ $mode == instructions ]]; then
    # valgrind 3.19 cannot read the DWARF 5 the Swift toolchain emits: profile copies without debug info.
    cg="$(mktemp -d)"
    trap 'rm -rf "$cg"' EXIT
    for library in "${libraries[@]}"; do
        strip --strip-debug -o "$cg/bench-$library" "$bin/bench-$library"
    done
    for name in "${workloads[@]}"; do
        for library in "${libraries[@]}"; do
            [[ -n "${has[$library/$name]:-}" ]] || continue
            out="$cg/$library-$name.out"
            line="$(valgrind --tool=callgrind --collect-atstart=no --toggle-collect='*measuredRun*' \
                --callgrind-out-file="$out" "$cg/bench-$library" "$name" --quick --no-allocs $process_flag 2>/dev/null \
                | grep '^RESULT')"
            n="$(sed -E 's/.* n=([0-9]+) .*/\1/' <<< "$line")"
            ir="$(grep -E '^(summary|totals):' "$out" | head -1 | awk '{print $2}')"
            per="$(awk -v ir="$ir" -v n="$n" 'BEGIN { printf "%.1f", ir / n }')"
            echo "$line" | sed -E "s/ ns=[^ ]+/ ns=$per/" >> "$raw"
            echo "$library $name: $per instructions/event" >&2
        done
    done
else
    for ((round = 1; round <= rounds; round++)); do
        for name in "${workloads[@]}"; do
            for library in "${libraries[@]}"; do
                [[ -n "${has[$library/$name]:-}" ]] || continue
                line="$("$bin/bench-$library" "$name" $quick $process_flag | grep '^RESULT')"
                echo "$line" >> "$raw"
                echo "round $round/$rounds: $line" >&2
            done
        done
    done
fi

echo
echo "Command: \`./run.sh $args\` ($mode; $(date -u '+%Y-%m-%d %H:%M UTC'); $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //'); raw results: $raw)"
echo
print_table "$raw"
