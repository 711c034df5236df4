#!/usr/bin/env bash
# Fails if a generated source differs from what Scripts/generate-arities.swift produces now.
set -euo pipefail
cd "$(dirname "$0")/.."
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
mkdir -p "$scratch/Untangle"
swift Scripts/generate-arities.swift "$scratch/Untangle" >/dev/null
status=0
while IFS= read -r generated; do
    relative=${generated#"$scratch/Untangle/"}
    swift format -i --configuration .swift-format "$generated"
    if ! diff -u "Sources/Untangle/$relative" "$generated"; then
        echo "Sources/Untangle/$relative is out of date: run 'swift Scripts/generate-arities.swift Sources/Untangle' then 'swift format -i' on it" >&2
        status=1
    fi
done < <(find "$scratch/Untangle" -name '*.generated.swift')
exit $status
