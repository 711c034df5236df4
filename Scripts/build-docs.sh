#!/usr/bin/env bash
# Builds the documentation site: one combined DocC archive for the four library modules, transformed for static
# hosting, with warnings as errors (a broken symbol link or an undocumented parameter fails the build).
#
# usage: Scripts/build-docs.sh [output-folder]     (default: .build-docs/site)
# Look at it: python3 -m http.server --directory .build-docs/site 8000, then http://127.0.0.1:8000/documentation/untangle/
#
# UntangleLint's catalog (the linter's article and one page per rule) is built beside it, into <output>/lint, as an
# article-only archive: the plugin would have to compile SwiftSyntax and SwiftParser (148,000 lines) for UntangleLint's
# symbol graph, a third swift-syntax build in CI, and that graph would be empty anyway (UntangleLint's API is
# `package`). docc converts the catalog without one; the only symbol link, the root page's title, becomes a technology
# root in a temporary copy. Warnings are errors there too (a broken <doc:> link between rule pages fails the build).
# Look at it: http://127.0.0.1:8000/lint/documentation/untanglelint/
set -euo pipefail
cd "$(dirname "$0")/.."
output="${1:-.build-docs/site}"
UNTANGLE_DOCS=1 swift package --scratch-path .build-docs --disable-sandbox \
    generate-documentation --enable-experimental-combined-documentation \
    --target Untangle --target UntangleExtras --target UntangleTesting --target UntangleSync \
    --transform-for-static-hosting --warnings-as-errors \
    --output-path "$output"
echo "documentation site: $output"

lint_catalog=$(mktemp -d)
trap 'rm -rf "$lint_catalog"' EXIT
cp -R Lint/Sources/UntangleLint/UntangleLint.docc "$lint_catalog/"
python3 - "$lint_catalog/UntangleLint.docc/UntangleLint.md" <<'PY'
import sys
path = sys.argv[1]
text = open(path).read()
title = "# ``UntangleLint``"
assert text.startswith(title), "UntangleLint.md must start with the module's symbol title"
open(path, "w").write(text.replace(title, "# UntangleLint\n\n@Metadata {\n    @TechnologyRoot\n}", 1))
PY
rm -rf "$output/lint"
"$(dirname "$(readlink -f "$(command -v swift)")")/docc" convert "$lint_catalog/UntangleLint.docc" \
    --fallback-display-name UntangleLint --fallback-bundle-identifier dev.untangle.UntangleLint \
    --transform-for-static-hosting --hosting-base-path lint --warnings-as-errors --output-path "$output/lint"
echo "linter rule pages: $output/lint/documentation/untanglelint/"
