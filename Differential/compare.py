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
        if line.startswith(">"):
            if line == "> cancel()" and subscribed:
                cancelled = True
            request = re.match(r"> request\(\.max\((\d+)\)\)", line)
            if request and subscribed and not cancelled:
                demand += int(request.group(1))
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


def finished_moved(ours, theirs):
    """The logs agree but for where (or whether) `finished` comes."""
    return [line for line in ours if line != "finished"] == [line for line in theirs if line != "finished"]


def explained(pipeline, ours, theirs):
    """Why a difference is not Untangle's, when a rule of thumb can tell; None otherwise."""
    subjects = re.findall(r"subject\d", pipeline)
    if len(subjects) != len(set(subjects)) or re.search(r"\{subject\d", pipeline):
        # Apple's subjects (and OpenCombine's) keep their subscribers in a Set: the order in which several
        # subscribers of one subject receive a value is unspecified there, and changes with the objects'
        # addresses; Untangle's is the order of subscription.
        return "a subject with several subscribers: their order is unspecified in Combine"
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
    ours_broken = {seed: violations(lines) for seed, lines in ours.items()}
    ours_broken = {seed: v for seed, v in ours_broken.items() if v}
    differing = [seed for seed in sorted(ours) if ours[seed] != theirs.get(seed)]
    theirs_only = [seed for seed in differing if seed not in ours_broken and violations(theirs[seed])]
    rest = [seed for seed in differing if seed not in ours_broken and seed not in theirs_only]
    ruled = {seed: explained(ours[seed][0], ours[seed][2:], theirs[seed][2:]) for seed in rest}
    ruled = {seed: reason for seed, reason in ruled.items() if reason}
    judged = [seed for seed in rest if seed not in ruled and seed in known]
    to_judge = [seed for seed in rest if seed not in ruled and seed not in known]
    print(
        f"{len(ours)} seeds: {len(ours_broken)} break a rule in Untangle's log; {len(differing)} differ from "
        f"OpenCombine: {len(theirs_only)} where only OpenCombine's log breaks a rule, {len(ruled)} explained by a "
        f"rule of thumb, {len(judged)} judged in the known differences, {len(to_judge)} to judge"
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
