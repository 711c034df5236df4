#!/usr/bin/env bash
# The project's own linter on itself (CI): Examples/Pitfalls must give exactly the findings recorded in
# Lint/Tests/UntangleLintTests/PitfallsTests.swift, and Sources/ and Lint/Sources/ must give none.
# Usage: Scripts/lint-check.sh [path-to-untangle-lint]   (default: builds it in debug and uses that)
set -euo pipefail
cd "$(dirname "$0")/.."

linter="${1:-}"
if [ -z "$linter" ]; then
    swift build --package-path Lint --product untangle-lint >/dev/null
    linter="$(swift build --package-path Lint --show-bin-path)/untangle-lint"
fi

expected="$(grep -oE '"[A-Za-z]+\.swift:[0-9]+:[0-9]+ [a-z-]+"' Lint/Tests/UntangleLintTests/PitfallsTests.swift | tr -d '"')"
status=0
actual="$("$linter" --quiet --reporter json --config Examples/Pitfalls/.untangle-lint.json Examples/Pitfalls | python3 -c '
import json, os, sys
for f in json.load(sys.stdin):
    print("%s:%d:%d %s" % (os.path.basename(f["path"]), f["line"], f["column"], f["rule"]))
')" || true
if [ "$actual" != "$expected" ]; then
    echo "lint-check: Examples/Pitfalls findings differ from PitfallsTests.expected:"
    diff <(echo "$expected") <(echo "$actual") || true
    status=1
else
    echo "lint-check: Examples/Pitfalls: the $(echo "$expected" | wc -l) expected findings, exactly"
fi

if ! "$linter" Sources Lint/Sources; then
    echo "lint-check: Sources/ or Lint/Sources/ has findings (fix them, or disable one with a reason:"
    echo "    // untangle:disable:next <rule-id> -- why this is safe)"
    status=1
else
    echo "lint-check: Sources/ and Lint/Sources/ are clean"
fi
exit $status
