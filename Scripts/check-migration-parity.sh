#!/usr/bin/env bash
# The migration parity check (issue 30): RxSwift programs that print their events (Examples/MigrationParity/RxSwift,
# kept as text: RxSwift is not available to build) are copied, rewritten by `untangle-lint migrate`, built against
# Untangle in Swift 5 language mode (Examples/MigrationParity/Package.swift) and run; each output must equal the one
# the RxSwift program prints (Examples/MigrationParity/Expected, reasoned from RxSwift's documented semantics and
# source, see the README there). Also checks that the migration leaves no spot in these programs, that every
# rewritten file parses, and that a second run changes nothing. The programs in Examples/MigrationParity/Differences
# show differences the migration cannot remove (the README says why); they are not run here.
# Own build folder (Examples/MigrationParity/.build-parity), so it never disturbs the root package's builds.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
parity="$root/Examples/MigrationParity"
scratch="$parity/.build-parity"

swift build --package-path "$root/Lint" --product untangle-lint
migrate="$(swift build --package-path "$root/Lint" --show-bin-path)/untangle-lint"

rm -rf "$parity/Migrated"
for program in "$parity"/RxSwift/*.swift; do
    name="$(basename "$program" .swift)"
    mkdir -p "$parity/Migrated/$name"
    cp "$program" "$parity/Migrated/$name/main.swift"
done

echo "== untangle-lint migrate Examples/MigrationParity/Migrated"
if ! "$migrate" migrate "$parity/Migrated"; then
    echo "the migration left spots (or failed) in the parity programs" >&2
    exit 1
fi
second="$("$migrate" migrate --dry-run --quiet "$parity/Migrated")"
if [ -n "$second" ]; then
    echo "a second run would change the migrated programs (the migration must be idempotent):" >&2
    echo "$second" >&2
    exit 1
fi

echo "== building the migrated programs (Swift 5 language mode)"
# The manifest lists RxSwift/'s files when it is evaluated: a cached evaluation would miss a program added since.
swift build --package-path "$parity" --scratch-path "$scratch" --manifest-cache none
bin="$(swift build --package-path "$parity" --scratch-path "$scratch" --manifest-cache none --show-bin-path)"

failed=0
for program in "$parity"/RxSwift/*.swift; do
    name="$(basename "$program" .swift)"
    actual="$(timeout 60 "$bin/$name" 2>&1 || echo "(exit status $?)")"
    if diff -u --label "Expected/$name.txt (RxSwift)" --label "$name (migrated)" \
        "$parity/Expected/$name.txt" <(printf '%s\n' "$actual"); then
        echo "same output: $name"
    else
        failed=1
    fi
done
if [ "$failed" -ne 0 ]; then
    echo "a migrated program does not print what its RxSwift original prints" >&2
    exit 1
fi
echo "every migrated program prints what its RxSwift original prints"
