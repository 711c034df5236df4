#!/usr/bin/env python3
"""Compares the logs of diff-untangle and diff-opencombine seed by seed.

Usage: compare.py UNTANGLE-LOG OPENCOMBINE-LOG [--known FILE] [--show N]   (FILE: `seed: reason` lines)

Each log is first checked on its own against the subscriber's side of the Reactive Streams rules that Combine keeps:
the subscription comes first, nothing comes after a completion or after the subscriber's own cancel, and no value
comes without demand. A rule broken in Untangle's log is a failure, whatever OpenCombine did. Where the logs differ
and only OpenCombine's breaks a rule, the seed is counted as OpenCombine's deviation. The other differing seeds are
printed for a reader to judge against Apple's behaviour (the conformance suite, Apple's documentation); run.sh
fails on them unless they are listed in known-differences.txt with the reason.
"""
import difflib
import re
import sys


# What diff-opencombine prints for a fan-in seed it does not run (FanInPipelines.swift).
NOT_IN_OPENCOMBINE = "(not in OpenCombine 0.14.0)"
# What diff-untangle appends to such a seed's log when its twin construction (another merge overload,
# combineLatest's transform moved to a map) logs otherwise: a failure, as a broken rule is.
TWIN_DIFFERS = "(the twin construction logs otherwise)"


def blocks(path):
    result, seed, lines = {}, None, []
    for line in open(path, encoding="utf-8", errors="replace"):
        line = line.rstrip("\n")
        match = re.match(r"== seed (\d+)$", line)
        if match:
            if seed is not None:
                result[seed] = lines
            seed, lines = int(match.group(1)), []
        else:
            lines.append(line)
    if seed is not None:
        result[seed] = lines
    return result


def demand_of(text):
    return float("inf") if text == "unlimited" else int(re.match(r"max\((\d+)\)", text).group(1))


def violations(lines):
    """The rules this log breaks, as short phrases."""
    found = []
    if "(OpenCombine stopped the program)" in lines:
        return ["stopped the program"]
    header = re.match(r"subscriber initial (\S+), per value (\S+),", lines[1])
    initial, per_value = demand_of(header.group(1)), demand_of(header.group(2))
    subscribed = terminated = cancelled = False
    demand = 0
    if "(OpenCombine stopped the program)" in lines:
        return ["stopped the program"]
    for line in lines[2:]:
        if line == TWIN_DIFFERS:
            found.append("the twin construction (another merge overload, combineLatest's transform moved) differs")
            continue
        if line.startswith("~"):
            # Not the pipeline's subscriber: another subscriber of a shared publisher, a request an operator makes
            # of its upstream (logRequests), a send the subscriber makes from inside receive.
            continue
        if line.startswith(">"):
            if line == "> cancel()" and subscribed:
                cancelled = True
            request = re.match(r"> request\(\.max\((\d+)\)\)", line)
            if request and subscribed and not cancelled:
                demand += int(request.group(1))
            if line == "> request(.unlimited)" and subscribed and not cancelled:
                # The fan-in mode's scripts also ask for .unlimited.
                demand = float("inf")
            continue
        if line == "(cancels in receive)":
            cancelled = True
            demand -= per_value  # the cancelling receive returns .none
            continue
        if line == "subscription":
            if subscribed:
                found.append("a second subscription")
            subscribed = True
            demand += initial
            continue
        if not subscribed:
            found.append(f"'{line}' before the subscription")
        if terminated:
            found.append(f"'{line}' after the completion")
        if cancelled:
            found.append(f"'{line}' after cancel")
        if line.startswith("value"):
            if demand < 1:
                found.append(f"'{line}' without demand")
            demand += per_value - 1
        else:
            terminated = True
    if not subscribed:
        # Every source here subscribes synchronously: a subscriber that has no subscription once the script ran
        # never gets one (Reactive Streams 1.9).
        found.append("no subscription")
    return found


def all_violations(lines):
    """The rules the pipeline's subscriber and each other subscriber of a shared publisher (`~ otherN` lines, its
    demand in the pipeline's text as `[otherN: initial X, per value Y, ...]`) break."""
    if "(OpenCombine stopped the program)" in lines:
        return ["stopped the program"]
    found = violations(lines)
    for name, initial, per_value in re.findall(r"\[(other\d+): initial (\S+), per value (\S+),", lines[0]):
        prefix = f"~ {name} "
        own = [line[len(prefix) :] for line in lines[2:] if line.startswith(prefix)]
        if own:
            header = [lines[0], f"subscriber initial {initial}, per value {per_value}, of {name}"]
            found += [f"{name}: {v}" for v in violations(header + own)]
    return found


def finished_moved(ours, theirs):
    """The logs agree but for where (or whether) `finished` comes (to the pipeline's subscriber or another)."""
    return [line for line in ours if not line.endswith("finished")] == [
        line for line in theirs if not line.endswith("finished")
    ]


def interleaving_only(ours, theirs, drop_finished=False):
    """Each subscriber's log (the other subscribers' `~ otherN` lines, and the rest, each with the script's `>` lines)
    is the same in both: only the order between subscribers within one step of the script differs. With
    drop_finished, `finished` lines are left out (see the prefix rule below)."""

    def split(lines):
        groups = {}
        names = {m.group(1) for line in lines for m in [re.match(r"~ (other\d+) ", line)] if m}
        for line in lines:
            if drop_finished and line.endswith("finished"):
                continue
            match = re.match(r"~ (other\d+) ", line)
            for name in names | {""} if line.startswith(">") else [match.group(1) if match else ""]:
                groups.setdefault(name, []).append(line)
        return groups

    return split(ours) == split(theirs)


def explained(pipeline, ours, theirs):
    """Why a difference is not Untangle's, when a rule of thumb can tell; None otherwise."""
    subjects = re.findall(r"subject\d", pipeline)
    if len(subjects) != len(set(subjects)) or re.search(r"(?<!Deferred)\{subject\d", pipeline):
        # Apple's subjects (and OpenCombine's) keep their subscribers in a Set: the order in which several
        # subscribers of one subject receive a value is unspecified there, and changes with the objects'
        # addresses; Untangle's is the order of subscription.
        return "a subject with several subscribers: their order is unspecified in Combine"
    if re.search(r"\.(share\(\)|multicast\()", pipeline) and interleaving_only(
        ours, theirs, drop_finished=bool(re.search(r"\.(prefix\(\d|output\()", pipeline))
    ):
        # share() and multicast(subject:) deliver through a subject: the order in which the other subscriber and
        # the pipeline's see one value is unspecified in Combine (as above); each one's own log is the same (but for
        # where `finished` comes when the prefix rule below applies too).
        return "share()/multicast: only the order between its subscribers differs"
    if re.search(r"\.(prefix\(\d|output\()", pipeline) and finished_moved(ours, theirs):
        # OpenCombine finishes prefix(n)/output(at:)/output(in:) on the upstream signal after the last index;
        # Untangle finishes right after the last index's value (what Combine does: `timer.prefix(3)` completes
        # with its third tick).
        return "prefix(n)/output(in:) finish right after the last index, not at the next upstream signal"
    return None


def main():
    args = sys.argv[1:]
    show = 10
    known = {}
    if "--known" in args:
        i = args.index("--known")
        for line in open(args[i + 1], encoding="utf-8"):
            line = line.strip()
            if line and not line.startswith("#"):
                seed, _, reason = line.partition(":")
                known[int(seed)] = reason.strip()
        del args[i : i + 2]
    if "--show" in args:
        i = args.index("--show")
        show = int(args[i + 1])
        del args[i : i + 2]
    ours, theirs = blocks(args[0]), blocks(args[1])
    ours_broken = {seed: all_violations(lines) for seed, lines in ours.items()}
    ours_broken = {seed: v for seed, v in ours_broken.items() if v}
    # The fan-in mode's seeds that use what OpenCombine 0.14.0 lacks (merge, combineLatest): diff-opencombine does not
    # run them, and only the rules are checked in Untangle's log.
    untangle_only = [seed for seed in sorted(ours) if NOT_IN_OPENCOMBINE in theirs.get(seed, [])]
    differing = [seed for seed in sorted(ours) if ours[seed] != theirs.get(seed) and seed not in untangle_only]
    theirs_only = [seed for seed in differing if seed not in ours_broken and all_violations(theirs[seed])]
    rest = [seed for seed in differing if seed not in ours_broken and seed not in theirs_only]
    ruled = {seed: explained(ours[seed][0], ours[seed][2:], theirs[seed][2:]) for seed in rest}
    ruled = {seed: reason for seed, reason in ruled.items() if reason}
    judged = [seed for seed in rest if seed not in ruled and seed in known]
    to_judge = [seed for seed in rest if seed not in ruled and seed not in known]
    print(
        f"{len(ours)} seeds: {len(ours_broken)} break a rule in Untangle's log; {len(differing)} differ from "
        f"OpenCombine: {len(theirs_only)} where only OpenCombine's log breaks a rule, {len(ruled)} explained by a "
        f"rule of thumb, {len(judged)} judged in the known differences, {len(to_judge)} to judge"
        + (f"; {len(untangle_only)} not compared (not in OpenCombine 0.14.0)" if untangle_only else "")
    )
    for seed in sorted(ours_broken)[:show]:
        print(f"\n== seed {seed}: Untangle's log breaks: {'; '.join(ours_broken[seed])}")
        print("\n".join("   " + line for line in ours[seed]))
    for seed in to_judge[:show]:
        print(f"\n== seed {seed} ({ours[seed][0]}; {ours[seed][1]}), Untangle -, OpenCombine +")
        for line in difflib.unified_diff(ours[seed][2:], theirs[seed][2:], lineterm="", n=2):
            if not line.startswith(("---", "+++")):
                print("   " + line)
    return 1 if ours_broken or to_judge else 0


if __name__ == "__main__":
    sys.exit(main())
