#!/usr/bin/env python3
"""Where one workload's instructions and heap bytes go (issue 33's subscription profile, and any other workload).

    ./profile.py subscribe-cancel                     callgrind: instructions per event by category, the top
                                                      functions (exclusive, demangled) and calls per event of the
                                                      runtime entry points (allocation, reference counting, locks)
    ./profile.py --library baseline holder-subscribe-cancel
    ./profile.py --heap memory-per-subscription       valgrind's dhat: the heap blocks allocated per event, with
                                                      their requested sizes, how many are live at the heap's peak
                                                      and how long they live (a held subscription's blocks live
                                                      to the end; a temporary's lifetime is near 0)
    ./profile.py --top 40 --scratch-path .build-x WORKLOAD
    ./profile.py --callers swift_getGenericMetadata --inclusive 'SubjectCore|Sink' subscribe-cancel
                                                      who calls a function; what a function costs with its callees

Counts are taken like `run.sh --instructions`: a copy of the executable without debug info (valgrind 3.19 cannot read
the DWARF 5 the Swift toolchain emits; the symbol table stays, so functions keep their names), `--quick`, callgrind
counting only inside `measuredRun` (after the warm-up; callgrind counts calls even while it does not collect, so
the calls per event shown here are divided by the warm-up's events too). dhat records the whole process: the heap
mode lists the program points with `measuredRun` in their stack that allocated at least one block or one byte per
event, which leaves out the process's setup and the warm-up. Sizes are the requested sizes (glibc's chunk adds 8
bytes and rounds up to 16). Build first (`swift build -c release`).
"""

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
from collections import defaultdict

CATEGORIES = [
    (
        "runtime type metadata",
        re.compile(
            r"GenericMetadata|MetadataCache|getCache\(|GenericCacheEntry|TupleCache|TupleTypeMetadata|"
            r"swift_getWitnessTable|WitnessTable|type metadata accessor|hash_short|hash_combine|"
            r"ConcurrentReadableHashMap|awaitSatisfyingState|AtomicWaitQueue|swift_checkMetadataState|"
            r"swift_getAssociated|FunctionTypeMetadata|swift_conformsToProtocol|swift_getCanonical|"
            r"MetadataAllocator|swift_getForeignTypeMetadata|__memcmp"
        ),
    ),
    (
        "heap allocation and release",
        re.compile(
            r"^(malloc|free|calloc|realloc|_int_malloc|_int_free|malloc_consolidate|tcache|unlink_chunk|"
            r"swift_allocObject|swift_slowAlloc|swift_deallocObject|swift_slowDealloc|swift_deallocClassInstance|"
            r"swift_deallocPartialClassInstance|swift_deallocUninitializedObject|_swift_release_dealloc|"
            r"swift_setDeallocating|swift_allocBox|swift_deallocBox|swift_initStackObject|"
            r"__libc_malloc|__libc_free)\b"
        ),
    ),
    (
        "reference counting",
        re.compile(
            r"swift_retain|swift_release|swift_bridgeObject|swift_unknownObject|doDecrementSlow|doDecrement|"
            r"swift_isUniquelyReferenced|swift_weak|swift_unowned|swift_nonatomic|RefCounts"
        ),
    ),
    ("mutex lock and unlock", re.compile(r"pthread_mutex_")),
    ("exclusivity checks", re.compile(r"swift_beginAccess|swift_endAccess|AccessSet|SwiftTLSContext|__tls_get_addr")),
]

ENTRY_POINTS = [
    "malloc",
    "free",
    "swift_allocObject",
    "swift_retain",
    "swift_release",
    "pthread_mutex_lock",
    "swift_getGenericMetadata",
    "swift_beginAccess",
]


def bin_path(scratch):
    out = subprocess.run(
        ["swift", "build", "-c", "release", "--scratch-path", scratch, "--show-bin-path"],
        check=True,
        capture_output=True,
        text=True,
    )
    return out.stdout.strip()


def demangle(names):
    if not names:
        return {}
    out = subprocess.run(
        ["swift", "demangle", "--simplified"], input="\n".join(names) + "\n", capture_output=True, text=True
    )
    lines = out.stdout.split("\n")
    return {name: (lines[i] if i < len(lines) and lines[i] else name) for i, name in enumerate(names)}


def run_workload(tool_args, executable, workload):
    command = ["valgrind"] + tool_args + [executable, workload, "--quick", "--no-allocs"]
    out = subprocess.run(command, capture_output=True, text=True)
    result = [line for line in out.stdout.splitlines() if line.startswith("RESULT")]
    if not result:
        sys.exit("profile.py: no RESULT line from %s\n%s" % (" ".join(command), out.stderr[-2000:]))
    n = int(re.search(r" n=(\d+) ", result[0]).group(1))
    return result[0], n


def parse_callgrind(path):
    """Exclusive cost and incoming call counts per (object, function) (callgrind's compressed format)."""
    spaces = {"fn": {}, "ob": {}}
    exclusive = defaultdict(int)
    calls = defaultdict(int)
    edges = defaultdict(lambda: [0, 0])  # (caller, callee) -> [calls, inclusive cost of those calls]
    current_object = callee_object = ""
    current = callee = None
    pending_call = False

    def name_of(space, spec):
        m = re.match(r"\((\d+)\)(?: (.*))?", spec)
        if not m:
            return spec
        if m.group(2) is not None:
            spaces[space][m.group(1)] = m.group(2)
        return spaces[space].get(m.group(1), spec)

    with open(path) as f:
        for line in f:
            line = line.rstrip("\n")
            if line.startswith("ob="):
                current_object = callee_object = os.path.basename(name_of("ob", line[3:]))
            elif line.startswith("cob="):
                callee_object = os.path.basename(name_of("ob", line[4:]))
            elif line.startswith("fn="):
                current = (current_object, name_of("fn", line[3:]))
                callee_object = current_object
            elif line.startswith("cfn="):
                callee = (callee_object, name_of("fn", line[4:]))
            elif line.startswith("calls="):
                calls[callee] += int(line[6:].split()[0])
                edges[(current, callee)][0] += int(line[6:].split()[0])
                pending_call = True
            elif line and (line[0].isdigit() or line[0] in "+-*"):
                parts = line.split()
                if len(parts) < 2:
                    continue
                if pending_call:
                    pending_call = False  # the inclusive cost of the call just named: not this function's own
                    edges[(current, callee)][1] += int(parts[1])
                    callee_object = current_object
                else:
                    exclusive[current] += int(parts[1])
    return exclusive, calls, edges


def category_of(name):
    for label, pattern in CATEGORIES:
        if pattern.search(name):
            return label
    return "library, workload and other code"


def callgrind_profile(executable, workload, top, callers_of, inclusive_of):
    with tempfile.TemporaryDirectory() as work:
        out_file = os.path.join(work, "callgrind.out")
        result, n = run_workload(
            [
                "--tool=callgrind",
                "--collect-atstart=no",
                "--toggle-collect=*measuredRun*",
                "--callgrind-out-file=" + out_file,
            ],
            executable,
            workload,
        )
        exclusive, calls, edges = parse_callgrind(out_file)
    keys = sorted(set(exclusive) | set(calls) | {key for edge in edges for key in edge})
    # Function names may carry callgrind's recursion suffix ('2); the rest is demangled.
    plain = {key: key[1].split("'")[0].split("@@")[0] for key in keys}
    demangled = demangle(sorted(set(plain.values())))
    readable = {key: demangled.get(plain[key], plain[key]) for key in keys}
    total = sum(exclusive.values())
    # Callgrind counts calls while it does not collect costs: the call counts include the warm-up's events (1/100 of
    # the count, at least 1; workloads that measure retained bytes have no warm-up).
    calls_n = n if re.search(r" bytes=[0-9]", result) else n + max(n // 100, 1)
    print(result)
    name = os.path.basename(executable)
    print("\n%s, %s: %.1f instructions per event (%d events)\n" % (workload, name, total / n, n))
    by_category = defaultdict(int)
    for key, cost in exclusive.items():
        by_category[category_of(readable[key])] += cost
    print("| where | instructions/event | share |")
    print("|---|---:|---:|")
    for label, cost in sorted(by_category.items(), key=lambda item: -item[1]):
        print("| %s | %.1f | %.1f%% |" % (label, cost / n, 100.0 * cost / total))
    print("\n| function (exclusive) | object | instructions/event | share | calls/event |")
    print("|---|---|---:|---:|---:|")
    for key, cost in sorted(exclusive.items(), key=lambda item: -item[1])[:top]:
        print(
            "| `%s` | %s | %.1f | %.1f%% | %.2f |"
            % (readable[key][:150], key[0], cost / n, 100.0 * cost / total, calls.get(key, 0) / calls_n)
        )
    # An allocation passes through the bench executable's malloc interposer and then glibc's malloc: the largest
    # count of one object is the number of calls.
    print("\n| runtime entry point | calls/event |")
    print("|---|---:|")
    for entry in ENTRY_POINTS:
        per_object = defaultdict(int)  # callgrind names a recursive entry NAME'2: the same function
        for key, count in calls.items():
            if plain[key] == entry:
                per_object[key[0]] += count
        print("| `%s` | %.2f |" % (entry, max(per_object.values(), default=0) / calls_n))
    if inclusive_of:
        # Inclusive: the function's own instructions and those of everything it calls (a recursive call counts
        # twice: read the numbers of recursive functions with care).
        pattern = re.compile(inclusive_of)
        inclusive = defaultdict(int, exclusive)
        for (caller, _), (_, cost) in edges.items():
            inclusive[caller] += cost
        header = "| function (inclusive), matching `%s` | object | instructions/event | share | calls/event |"
        print("\n" + header % inclusive_of)
        print("|---|---|---:|---:|---:|")
        matching = [key for key in keys if pattern.search(readable[key])]
        for key in sorted(matching, key=lambda key: -inclusive[key])[:top]:
            print(
                "| `%s` | %s | %.1f | %.1f%% | %.2f |"
                % (
                    readable[key][:150],
                    key[0],
                    inclusive[key] / n,
                    100.0 * inclusive[key] / total,
                    calls.get(key, 0) / calls_n,
                )
            )
    if callers_of:
        pattern = re.compile(callers_of)
        print("\n| caller | callee matching `%s` | calls/event | instructions/event in the callee |" % callers_of)
        print("|---|---|---:|---:|")
        rows = [
            (caller, callee, count, cost)
            for (caller, callee), (count, cost) in edges.items()
            if pattern.search(readable[callee]) and caller is not None
        ]
        for caller, callee, count, cost in sorted(rows, key=lambda row: -row[3])[:top]:
            print(
                "| `%s` | `%s` | %.2f | %.1f |"
                % (readable[caller][:120], readable[callee][:60], count / calls_n, cost / n)
            )


def frame_function(frame, mapping):
    m = re.match(r"0x[0-9A-Fa-f]+: (.*?) \((?:in |[^)]*\.[a-z]+:)", frame)
    symbol = m.group(1) if m else frame
    return mapping.get(symbol, symbol)


ALLOCATOR_FRAMES = re.compile(
    r"^(malloc|calloc|realloc|memalign|posix_memalign|aligned_alloc|swift_slowAlloc|swift_allocObject|"
    r"swift_allocBox|__libc_malloc|operator new)"
)


def dhat_profile(executable, workload):
    with tempfile.TemporaryDirectory() as work:
        out_file = os.path.join(work, "dhat.json")
        result, n = run_workload(
            ["--tool=dhat", "--num-callers=60", "--dhat-out-file=" + out_file], executable, workload
        )
        with open(out_file) as f:
            data = json.load(f)
    symbols = set()
    for frame in data["ftbl"]:
        m = re.match(r"0x[0-9A-Fa-f]+: (.*?) \(", frame)
        if m:
            symbols.add(m.group(1))
    mapping = demangle(sorted(symbols))
    end = float(data["te"])
    rows = []
    for point in data["pps"]:
        blocks, size = point["tbk"], point["tb"]
        if blocks < n and size < n:
            continue
        frames = [frame_function(data["ftbl"][i], mapping) for i in point["fs"]]
        if not any(f.startswith("measuredRun") for f in frames):
            continue  # the process's own setup, not the workload's
        useful = [f for f in frames if not ALLOCATOR_FRAMES.match(f)]
        lifetime = point["tl"] / blocks / end
        rows.append(
            (size / n, blocks / n, size / blocks, point["gbk"] / n, lifetime, " ← ".join(useful[:3])[:230])
        )
    print(result)
    print("\n%s, %s: heap blocks allocated per event (%d events)\n" % (workload, os.path.basename(executable), n))
    print(
        "| bytes/event | blocks/event | bytes/block (requested) | live at the heap's peak, blocks/event "
        "| mean lifetime (share of the run) | allocated in |"
    )
    print("|---:|---:|---:|---:|---:|---|")
    total_bytes = total_blocks = 0.0
    for per_event, blocks, size, live, lifetime, where in sorted(rows, key=lambda row: -row[0]):
        total_bytes += per_event
        total_blocks += blocks
        print("| %.1f | %.2f | %.1f | %.2f | %.2f | `%s` |" % (per_event, blocks, size, live, lifetime, where))
    print("| **%.1f** | **%.2f** | | | | total of the points above |" % (total_bytes, total_blocks))


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("workload")
    parser.add_argument("--library", default="untangle", choices=["untangle", "opencombine", "baseline"])
    parser.add_argument("--heap", action="store_true", help="dhat instead of callgrind")
    parser.add_argument("--top", type=int, default=25)
    parser.add_argument("--callers", metavar="REGEX", help="also list the callers of the functions matching REGEX")
    parser.add_argument("--inclusive", metavar="REGEX", help="also list the inclusive cost of the functions matching")
    parser.add_argument("--scratch-path", default=".build")
    args = parser.parse_args()
    os.chdir(os.path.dirname(os.path.abspath(__file__)))
    with tempfile.TemporaryDirectory() as work:
        executable = os.path.join(work, "bench-" + args.library)
        source = os.path.join(bin_path(args.scratch_path), "bench-" + args.library)
        subprocess.run(["strip", "--strip-debug", "-o", executable, source], check=True)
        if args.heap:
            dhat_profile(executable, args.workload)
        else:
            callgrind_profile(executable, args.workload, args.top, args.callers, args.inclusive)


if __name__ == "__main__":
    main()
