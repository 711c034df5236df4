#!/usr/bin/env bash
# Builds the Swift 5 language mode client package (Examples/Swift5Client: the common app shapes, main-actor closures
# run on other threads as Apple's Combine lets Swift 5 code run them) and runs its tests, which must pass: Swift 5
# code inserts no isolation checks, with Combine or with Untangle (issue 29).
# Own build folder (Examples/Swift5Client/.build-swift5client), so it never disturbs the root package's builds.
set -euo pipefail
cd "$(dirname "$0")/../Examples/Swift5Client"
scratch=.build-swift5client
swift build --build-tests --scratch-path "$scratch"
swift test --skip-build --scratch-path "$scratch"

# A package that depends on Untangle's libraries resolves no swift-syntax (the linter is a package of its own, Lint/)
# and no documentation plugin (added only for Scripts/build-docs.sh): issue 32.
for unwanted in swift-syntax swift-docc-plugin; do
    if [ -e "$scratch/checkouts/$unwanted" ]; then
        echo "check-swift5-client: a client of Untangle's libraries resolved $unwanted" >&2
        exit 1
    fi
done
echo "check-swift5-client: resolved $(ls "$scratch/checkouts" | tr '\n' ' ')(no swift-syntax, no docc plugin)"
