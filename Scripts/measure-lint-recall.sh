#!/usr/bin/env bash
# Recall of `untangle lint` on the corpus of real fixes (Corpus/lint-fixes/cases.tsv): restores each case's file before
# and after its fix from fetched mirrors, lints it, and prints per kind of bug how many cases have a finding of that
# kind's rules at the bug lines of the file before the fix, and how many findings those rules give at the fixed lines
# of the file after it (the target: none). Twice: the default rules, then every rule.
# Usage: Scripts/measure-lint-recall.sh [--with-repository] [--kind KIND] <mirrors-folder> [path-to-untangle-lint]
#   (default linter: Lint/.build/release/untangle-lint, built if missing). CI has no mirrors: this runs by hand.
#   Without --with-repository each file is linted alone. With it, each case's file is linted with `--cross-file`
#   together with every Swift file of its repository at the same commit (the parent commit for the file before the
#   fix, the fix commit for the file after it), as `untangle lint --cross-file <repository>` would lint it; files the
#   mirror lacks (a snapshot without some large blobs) are left out and counted on stderr.
#   --kind KIND measures only the cases of one kind (cases.tsv's `kind` column, e.g. main-thread): with
#   --with-repository, only the repositories and commits those cases need are restored and linted.
set -euo pipefail
cd "$(dirname "$0")/.."
with_repository=0
kind_filter=""
while [ $# -gt 0 ]; do
    case "$1" in
    --with-repository) with_repository=1 ;;
    --kind)
        kind_filter="${2:-}"
        shift
        ;;
    *) break ;;
    esac
    shift
done
if [ $# -lt 1 ]; then
    echo "usage: $0 [--with-repository] [--kind KIND] <mirrors-folder> [path-to-untangle-lint]" >&2
    exit 2
fi
mirrors="$1"
linter="${2:-Lint/.build/release/untangle-lint}"
if [ ! -x "$linter" ]; then
    swift build -c release --package-path Lint --product untangle-lint >/dev/null
fi
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
Corpus/lint-fixes/restore.sh "$mirrors" "$work/cases"

# Every rule, the ones off by default included.
all_rules="$("$linter" --rules | sed -n 's/^\([a-z-]*\) (.*off by default.*/"\1"/p' | paste -sd, -)"
echo "{\"enabled_rules\": [${all_rules}]}" > "$work/all.json"
echo '{}' > "$work/default.json"

if [ "$with_repository" = 0 ]; then
    for mode in default all; do
        for dir in "$work"/cases/*/; do
            id="$(basename "$dir")"
            if [ -n "$kind_filter" ] && ! awk -F'\t' -v id="$id" -v kind="$kind_filter" \
                '$1 == id && $7 == kind { found = 1 } END { exit !found }' Corpus/lint-fixes/cases.tsv; then
                continue
            fi
            for side in before after; do
                "$linter" --quiet --reporter json --config "$work/$mode.json" "$dir$side" \
                    > "$work/$mode.$id.$side.json" || true
            done
        done
    done
else
    # One restore and two lints (default rules, every rule) per repository and commit; each case then takes its
    # file's findings from them.
    while IFS=$'\t' read -r id repository fix parent path path_before kind _; do
        [ "$id" = "id" ] && continue
        [ -d "$work/cases/$id" ] || continue
        [ -z "$kind_filter" ] || [ "$kind" = "$kind_filter" ] || continue
        printf '%s\t%s\t%s\t%s\n' "$id" before "$repository" "$parent" >> "$work/sides.tsv"
        printf '%s\t%s\t%s\t%s\n' "$id" after "$repository" "$fix" >> "$work/sides.tsv"
        printf '%s\t%s\n' "$id.before" "$path_before" >> "$work/paths.tsv"
        printf '%s\t%s\n' "$id.after" "$path" >> "$work/paths.tsv"
    done < Corpus/lint-fixes/cases.tsv
    cut -f3,4 "$work/sides.tsv" | sort -u | while IFS=$'\t' read -r repository commit; do
        name="${repository/\//+}"
        git_dir="$mirrors/$name/repo"
        [ -d "$git_dir" ] || git_dir="$mirrors/$name"
        tree="$work/tree/$name"
        rm -rf "$tree" && mkdir -p "$tree"
        # Regular Swift files only (no symbolic links); a blob the mirror lacks is skipped.
        git -C "$git_dir" ls-tree -r "$commit" | awk -F'\t' '$1 ~ /^100/ && $2 ~ /\.swift$/' |
            python3 -c '
import subprocess, sys, os
tree, git_dir = sys.argv[1], sys.argv[2]
entries = [line.rstrip("\n").split("\t", 1) for line in sys.stdin]
batch = subprocess.Popen(["git", "-C", git_dir, "cat-file", "--batch"], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
missing = 0
for meta, path in entries:
    batch.stdin.write((meta.split()[2] + "\n").encode()); batch.stdin.flush()
    header = batch.stdout.readline().split()
    if header[1] == b"missing":
        missing += 1
        continue
    data = batch.stdout.read(int(header[2])); batch.stdout.read(1)
    os.makedirs(os.path.dirname(os.path.join(tree, path)), exist_ok=True)
    open(os.path.join(tree, path), "wb").write(data)
if missing:
    sys.stderr.write("measure: %s: %d Swift files missing from the mirror\n" % (tree, missing))
' "$tree" "$git_dir"
        # One lint with every rule; the default rules' findings are those of the rules on by default (each rule
        # reports on its own, so that is what a run with the default rules gives, at half the cost).
        (cd "$work/tree" && "$linter" --quiet --cross-file --reporter json --config "$work/all.json" "$name") \
            > "$work/all.$name.$commit.json" || true
        python3 -c '
import json, sys
off = set(json.loads(sys.argv[1]))
found = json.load(open(sys.argv[2])) if open(sys.argv[2]).read().strip() else []
json.dump([f for f in found if f["rule"] not in off], open(sys.argv[3], "w"))
' "[${all_rules}]" "$work/all.$name.$commit.json" "$work/default.$name.$commit.json" || true
        rm -rf "$tree"
    done
    python3 - "$work" <<'PY'
import json, sys
work = sys.argv[1]
paths = dict(line.rstrip("\n").split("\t") for line in open(work + "/paths.tsv"))
for line in open(work + "/sides.tsv"):
    case, side, repository, commit = line.rstrip("\n").split("\t")
    name = repository.replace("/", "+")
    wanted = name + "/" + paths[case + "." + side]
    for mode in ("default", "all"):
        try:
            found = json.load(open("%s/%s.%s.%s.json" % (work, mode, name, commit)))
        except (OSError, ValueError):
            found = []
        json.dump([f for f in found if f["path"] == wanted],
                  open("%s/%s.%s.%s.json" % (work, mode, case, side), "w"))
PY
fi

python3 - "$work" Corpus/lint-fixes/cases.tsv "$kind_filter" <<'PY'
import csv, json, os, sys
work, cases_path, kind_filter = sys.argv[1], sys.argv[2], sys.argv[3]
# The rules that answer each kind of bug.
RULES = {
    "retain-cycle": {"sink-retain-cycle", "rx-subscribe-retain-cycle", "assign-on-self", "task-retain-cycle"},
    "main-thread": {"ui-update-off-main", "ui-update-unproven-main", "published-stale-read"},
    "main-sync": {"main-queue-sync", "main-queue-sync-guarded", "sync-on-current-queue", "sync-on-caller-queue"},
    "cancellables-threads": {
        "cancellable-set-from-closure", "rx-disposebag-reassigned-across-threads", "subscription-state-outside-lock",
        "buffer-state-outside-lock"},
    "queue-sync-lock": {"barrier-queue-reader-writer", "sync-on-current-queue"},
    "blocking-wait": {
        "blocking-wait-in-pool", "blocking-wait-on-main", "blocking-wait-for-async-work", "blocking-wait-for-callback"},
    "subscription-demand": {
        "unsynchronized-subscription", "subscription-state-outside-lock", "buffer-state-outside-lock",
        "callout-under-lock"},
    "eager-publisher": {"eager-future", "eager-publisher"},
    "discarded-cancellable": {"discarded-cancellable"},
}
rows = [r for r in csv.DictReader(open(cases_path), delimiter="\t") if not kind_filter or r["kind"] == kind_filter]
def inside(spans, line):
    # bug_lines and fixed_lines: one span "a-b", or several "a-b,c-d" when the fix changed places far apart.
    return any(int(p.split("-")[0]) <= line <= int(p.split("-")[1]) for p in spans.split(","))
def findings(mode, case, side):
    path = os.path.join(work, "%s.%s.%s.json" % (mode, case, side))
    try:
        return json.load(open(path))
    except (OSError, ValueError):
        return []
for mode in ("default", "all"):
    print("== %s rules" % ("default" if mode == "default" else "every"))
    print("%-22s %14s %22s" % ("kind", "found / total", "findings at the fix"))
    totals = [0, 0, 0]
    kinds = sorted({r["kind"] for r in rows}, key=lambda k: -sum(1 for r in rows if r["kind"] == k))
    missed = []
    for kind in kinds:
        found = total = after = 0
        for r in rows:
            if r["kind"] != kind:
                continue
            total += 1
            hit = any(f["rule"] in RULES[kind] and inside(r["bug_lines"], f["line"])
                      for f in findings(mode, r["id"], "before"))
            found += hit
            if not hit:
                missed.append(r["id"])
            after += sum(1 for f in findings(mode, r["id"], "after")
                         if f["rule"] in RULES[kind] and inside(r["fixed_lines"], f["line"]))
        totals = [totals[0] + found, totals[1] + total, totals[2] + after]
        print("%-22s %8d / %-4d %16d" % (kind, found, total, after))
    print("%-22s %8d / %-4d %16d   (%.0f%% found)" % ("total", totals[0], totals[1], totals[2], 100.0 * totals[0] / max(1, totals[1])))
    print("missed: " + " ".join(missed))
PY
