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
