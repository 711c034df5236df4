#!/usr/bin/env bash
# Builds the documentation site: one combined DocC archive for the four library modules, transformed for static
# hosting, with warnings as errors (a broken symbol link or an undocumented parameter fails the build).
#
# usage: Scripts/build-docs.sh [output-folder]     (default: .build-docs/site)
# Look at it: python3 -m http.server --directory .build-docs/site 8000, then http://127.0.0.1:8000/documentation/untangle/
#
# UntangleLint's catalog (the linter's article and rule pages) is not in the site: the plugin would have to compile
# SwiftSyntax and SwiftParser (148,000 lines) in this script's own build folder for UntangleLint's symbol graph, a
# third swift-syntax build in CI (far beyond the 3 minutes the docs step may grow by on 2 cores), and the symbol graph
# would be empty anyway (UntangleLint's API is `package`, not public): readers get the same pages from
# Sources/UntangleLint/UntangleLint.docc in the repository.
set -euo pipefail
cd "$(dirname "$0")/.."
output="${1:-.build-docs/site}"
swift package --scratch-path .build-docs --disable-sandbox \
    generate-documentation --enable-experimental-combined-documentation \
    --target Untangle --target UntangleExtras --target UntangleTesting --target UntangleSync \
    --transform-for-static-hosting --warnings-as-errors \
    --output-path "$output"
echo "documentation site: $output"
