#!/usr/bin/env bash
# Measures `untangle migrate` on the real-code corpus (Corpus/migrate): restores the files from fetched mirrors into a
# temporary folder, migrates each project with the release build of untangle-lint, and prints per project the share
# of RxSwift-only constructs rewritten (types, subjects/relays, bags, subscribe(onNext:...), disposed(by:), Rx
# schedulers, asObservable, bind(to:)/drive(to), observer calls: counted by syntax before and after), how many
# rewritten files parse (must be all), the spots left with their reasons, and the speed.
# Usage: Scripts/measure-migrate-corpus.sh <mirrors-folder> [--keep <folder>]
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
if [ $# -lt 1 ]; then
    echo "usage: $0 <mirrors-folder> [--keep <folder>]" >&2
    exit 2
fi
mirrors="$1"
work="$(mktemp -d)"
if [ "${2:-}" = "--keep" ] && [ -n "${3:-}" ]; then
    work="$3"
    rm -rf "$work"
    mkdir -p "$work"
else
    trap 'rm -rf "$work"' EXIT
fi
"$root/Corpus/migrate/restore.sh" "$mirrors" "$work" >&2
swift build -c release --package-path "$root/Lint" --product untangle-lint >&2
migrate="$(swift build -c release --package-path "$root/Lint" --show-bin-path)/untangle-lint"

# Dry runs: the files stay as restored, so every run sees the same input.
"$migrate" migrate --dry-run --quiet "$work" >/dev/null || true  # warm-up for the speed line below
"$migrate" migrate --dry-run "$work" >/dev/null 2>"$work/all.speed" || true
for project in "$work"/*/; do
    name="$(basename "$project")"
    "$migrate" migrate --dry-run --quiet --report json "$project" >"$work/$name.report.json" || true
done

python3 - "$work" <<'PY'
import collections, glob, json, os, re, sys
work = sys.argv[1]
headline = ["types", "subjects", "bags", "subscribe", "disposed", "schedulers", "asObservable", "bind",
            "observerCalls"]
print("| Project | Files | Parse after | Constructs before | Rewritten | Share | Spots left |")
print("|---|---|---|---|---|---|---|")
totals = collections.Counter()
reasons = collections.Counter()
for report in sorted(glob.glob(os.path.join(work, "*.report.json"))):
    name = os.path.basename(report)[: -len(".report.json")]
    data = json.load(open(report))
    files = [f for f in data["perFile"] if f["rxFile"]]
    before = sum(sum(f["constructsBefore"].get(c, 0) for c in headline) for f in files)
    after = sum(sum(f["constructsAfter"].get(c, 0) for c in headline) for f in files)
    parses = sum(1 for f in files if f["parses"])
    spots = len(data["spots"])
    for spot in data["spots"]:
        # One line per kind of spot: the reason without the names of the code it is about.
        reason = re.sub(r"^RxCocoa's \S+?\.rx\.\w+", "RxCocoa's x.rx.y", spot["reason"])
        reason = re.sub(r"\(.*\)", "(...)", reason)
        reasons[re.sub(r"^(\w+) is built on RxSwift", "a library built on RxSwift", reason)] += 1
    share = 100.0 * (before - after) / before if before else 100.0
    print(f"| {name.replace('+', '/')} | {len(files)} | {parses}/{len(files)} | {before} | {before - after} | "
          f"{share:.1f}% | {spots} |")
    totals.update(files=len(files), parses=parses, before=before, after=after, spots=spots)
share = 100.0 * (totals["before"] - totals["after"]) / totals["before"] if totals["before"] else 100.0
print(f"| **all** | {totals['files']} | {totals['parses']}/{totals['files']} | {totals['before']} | "
      f"{totals['before'] - totals['after']} | {share:.1f}% | {totals['spots']} |")
print()
print("Spots left, by reason:")
for reason, count in reasons.most_common():
    print(f"  {count:4d}  {reason[:150]}")
print()
print(open(os.path.join(work, "all.speed")).read().strip())
PY
