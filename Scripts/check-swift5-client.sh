#!/usr/bin/env bash
# Builds the Swift 5 language mode client package (Examples/Swift5Client: the common app shapes, main-actor closures
# run on other threads as Apple's Combine lets Swift 5 code run them) and runs its tests, which must pass: Swift 5
# code inserts no isolation checks, with Combine or with Untangle (issue 29).
# Own build folder (Examples/Swift5Client/.build-swift5client), so it never disturbs the root package's builds.
set -euo pipefail
cd "$(dirname "$0")/../Examples/Swift5Client"
scratch=.build-swift5client
# Resolve from the manifests alone (a Package.resolved left by an older checkout could pin what the root no longer
# declares; it is never committed).
rm -f Package.resolved
swift build --build-tests --scratch-path "$scratch"
swift test --skip-build --scratch-path "$scratch"

# A package that depends on Untangle's libraries resolves no swift-syntax (the linter is a package of its own, Lint/)
# and no documentation plugin (added only for Scripts/build-docs.sh): issue 32. Package.resolved lists what was
# resolved.
resolved=$(grep -o '"identity" : "[^"]*"' Package.resolved | sed 's/.*: "\(.*\)"/\1/' | sort | tr '\n' ' ')
for unwanted in swift-syntax swift-docc-plugin; do
    if grep -q "\"identity\" : \"$unwanted\"" Package.resolved; then
        echo "check-swift5-client: a client of Untangle's libraries resolved $unwanted (resolved: $resolved)" >&2
        exit 1
    fi
done
echo "check-swift5-client: resolved ${resolved}(no swift-syntax, no docc plugin)"
