#!/usr/bin/env bash
# Builds the Swift 6 client package (Examples/Swift6Client: app-style code using Untangle in Swift 6 language mode,
# its own targets compiled with -warnings-as-errors) and runs its tests, which start the probe executable in child
# processes: the isolation check must stop the unsafe patterns and stay silent on the safe ones (issue 19 part 4).
# Own build folder (Examples/Swift6Client/.build-swift6client), so it never disturbs the root package's builds.
set -euo pipefail
cd "$(dirname "$0")/../Examples/Swift6Client"
scratch=.build-swift6client
swift build --build-tests --scratch-path "$scratch"
swift test --skip-build --scratch-path "$scratch"
