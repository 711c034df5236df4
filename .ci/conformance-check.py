#!/usr/bin/env python3
"""Runs Apple's recorded behaviour (../shared/conformance/run.sh, OpenCombine's suite) against Untangle and holds
the result to two lists in .ci/:

  conformance-skip.txt            tests left out because Apple's behaviour conflicts with the threading contract
                                  (each also in ThreadSafety.md); passed to the harness as --skip.
  conformance-known-failures.txt  tests (and test files that do not compile) still failing while issue 14 is open.

The run fails on any failure or build error that is not in the known list, so behaviour that conforms today can
never regress. Entries of the known list that now pass are printed so the list can shrink (`--update` rewrites it
from the run). Usage: .ci/conformance-check.py [--update] [--workdir DIR]
"""
import argparse
import json
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
HARNESS = os.path.join(os.path.dirname(ROOT), "shared", "conformance", "run.sh")
SKIP_FILE = os.path.join(ROOT, ".ci", "conformance-skip.txt")
KNOWN_FILE = os.path.join(ROOT, ".ci", "conformance-known-failures.txt")
KNOWN_HEADER = """\
# Conformance tests Untangle still fails (issue 14 open), checked by .ci/conformance-check.py: CI fails on any
# failure not listed here, so what conforms today cannot regress. Regenerate with `.ci/conformance-check.py --update`
# after a change that makes tests pass; never add a line by hand to hide a regression.
#   fail <Suite/testMethod>
#   build-error <test file that does not compile>
"""


def read_skips():
    patterns = []
    with open(SKIP_FILE) as f:
        for line in f:
            m = re.match(r"^skip-test\s+([^|]*[^|\s])\s*\|", line)
            if m:
                patterns.append(m.group(1))
    return patterns


def read_known():
    fails, build_errors = set(), set()
    if os.path.exists(KNOWN_FILE):
        with open(KNOWN_FILE) as f:
            for line in f:
                parts = line.split()
                if len(parts) == 2 and parts[0] == "fail":
                    fails.add(parts[1])
                elif len(parts) == 2 and parts[0] == "build-error":
                    build_errors.add(parts[1])
    return fails, build_errors


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--update", action="store_true", help="rewrite the known-failures list from this run")
    ap.add_argument("--workdir", default=os.path.join(ROOT, ".build-conformance"))
    args = ap.parse_args()

    if not os.access(HARNESS, os.X_OK):
        sys.exit("the conformance tool is missing: expected %s (shared/ beside the checkout)" % HARNESS)
    command = [HARNESS, ROOT, "Untangle", "--workdir", args.workdir]
    skips = read_skips()
    if skips:
        command += ["--skip", "|".join(skips)]
    run = subprocess.run(command)
    report_path = os.path.join(args.workdir, "report.json")
    if not os.path.exists(report_path):
        sys.exit("the conformance run wrote no report (exit status %d)" % run.returncode)
    with open(report_path) as f:
        report = json.load(f)
    if not report.get("build_ok", True):
        sys.exit("the conformance suite did not build against Untangle")

    def short(name):
        return name.split(".", 1)[1] if name.startswith("OpenCombineTests.") else name

    failing = {short(item["test"]): item.get("message", "") for item in report["failures"]}
    broken = {item["file"]: item.get("first_error", "") for item in report["build_errors"]}

    if args.update:
        with open(KNOWN_FILE, "w") as f:
            f.write(KNOWN_HEADER)
            for name in sorted(broken):
                f.write("build-error %s\n" % name)
            for name in sorted(failing):
                f.write("fail %s\n" % name)
        print("wrote %s: %d failures, %d build errors" % (KNOWN_FILE, len(failing), len(broken)))
        return

    known_fails, known_broken = read_known()
    new_fails = sorted(set(failing) - known_fails)
    new_broken = sorted(set(broken) - known_broken)
    fixed = sorted(known_fails - set(failing)) + sorted(known_broken - set(broken))
    print("conformance: %d passed, %d failed (%d known), %d build errors (%d known), %d skipped"
          % (report["passed"], len(failing), len(known_fails & set(failing)), len(broken),
             len(known_broken & set(broken)), len(report.get("skipped", []))))
    if fixed:
        print("now passing, remove from %s (or run --update): %s"
              % (os.path.relpath(KNOWN_FILE, ROOT), ", ".join(fixed)))
    for name in new_broken:
        print("REGRESSION, does not compile: %s: %s" % (name, broken[name]))
    for name in new_fails:
        print("REGRESSION, fails: %s: %s" % (name, failing[name].splitlines()[0] if failing[name] else ""))
    if new_fails or new_broken:
        sys.exit(1)


if __name__ == "__main__":
    main()
