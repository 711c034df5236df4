#!/usr/bin/env bash
# Real client packages on Untangle: two open-source packages that support Combine (and OpenCombine on Linux) are
# built with `import Untangle` in place of Combine, and their own Combine tests run, in Swift 6 language mode for the
# libraries and their tests' own mode:
#
# - pointfreeco/combine-schedulers 1.2.2: its schedulers (AnyScheduler, TestScheduler, ImmediateScheduler,
#   UIScheduler, Timer) on Untangle's `Scheduler` protocol and operators, and its 23 tests.
# - groue/GRDB.swift 7.10.0: its database publishers (read, write, ValueObservation, DatabaseRegionObservation) on
#   Untangle, and its 32 Combine tests (Tests/GRDBCombineTests with its CombineExpectations helper and the two test
#   support files they need from Tests/GRDBTests).
#
# Nothing of theirs is in this repository: each package is cloned at its release tag from the package mirror that
# SwiftPM resolves from (github.com addresses, offline on this project's machines), into a temporary folder, where
# the only edits are the import lines (`Combine`/`OpenCombine`/`OpenCombineShim` become `Untangle`, and
# `canImport(...)` of them `canImport(Untangle)`), a manifest of ours that depends on this checkout by path, and what
# a test bundle outside SwiftPM's resources needs (GRDB's `Bundle.module`, which its Combine tests do not read).
#
# Skipped, with the reason: combine-schedulers' UnimplementedSchedulerTests (`XCTExpectFailure` is Apple's XCTest
# only) and UISchedulerTests.testRunsOnMain, which asserts, on a background queue right after scheduling work on the
# main queue, that the work has not run yet: the main thread, waiting in `wait(for:)`, may run it first (a race in
# the test, with Apple's Combine too; it fails about one run in three here). GRDB's
# ValueObservationPublisherTests.testDefaultSchedulerFirstValueIsEmittedAsynchronously: its sink blocks on a
# semaphore signalled once, and on Linux, where GRDB is built without SQLite's WAL snapshots, a DatabasePool may
# notify the initial value twice (once from its reader, once more when its writer starts observing,
# `asyncStartObservationWithoutWALSnapshot`), so the second value waits forever (seen once in six runs under load).
#
# Not run by `.ci/run`: GRDB's Combine tests wait for database work with one-second timeouts, which a loaded 2-core
# machine can miss. Results are recorded in Sources/Untangle/Untangle.docc/Compatibility.md, "Client packages".
#
# Usage: Scripts/check-client-packages.sh [--sanitize=thread]   (any options are passed to `swift test`)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# Rewrites the Combine imports of the Swift files under the given folders to Untangle.
to_untangle() {
    find "$@" -name '*.swift' -print0 | xargs -0 sed -i -E \
        -e 's/canImport\((Combine|OpenCombineShim|OpenCombine)\)/canImport(Untangle)/g' \
        -e 's/^( *)((public |internal |@preconcurrency )*)import (Combine|OpenCombineShim|OpenCombine)$/\1\2import Untangle/' \
        -e 's/\b(Combine|OpenCombine)\.([A-Z])/Untangle.\2/g'
}

clone() {  # clone URL TAG FOLDER
    git -c advice.detachedHead=false clone --quiet --depth 1 --branch "$2" "$1" "$3"
}

echo "== combine-schedulers 1.2.2"
clone https://github.com/pointfreeco/combine-schedulers 1.2.2 "$work/cs-src"
mkdir -p "$work/cs"
cp -r "$work/cs-src/Sources" "$work/cs-src/Tests" "$work/cs/"
to_untangle "$work/cs/Sources" "$work/cs/Tests"
cat >"$work/cs/Package.swift" <<EOF
// swift-tools-version: 6.0
import PackageDescription
let package = Package(
    name: "combine-schedulers-on-untangle",
    dependencies: [
        .package(url: "https://github.com/pointfreeco/swift-concurrency-extras", from: "1.0.0"),
        .package(url: "https://github.com/pointfreeco/xctest-dynamic-overlay", from: "1.3.0"),
        .package(name: "Untangle", path: "$root"),
    ],
    targets: [
        .target(
            name: "CombineSchedulers",
            dependencies: [
                .product(name: "Untangle", package: "Untangle"),
                .product(name: "ConcurrencyExtras", package: "swift-concurrency-extras"),
                .product(name: "IssueReporting", package: "xctest-dynamic-overlay"),
            ]),
        .testTarget(name: "CombineSchedulersTests", dependencies: ["CombineSchedulers"]),
    ],
    swiftLanguageModes: [.v6]
)
EOF
# UnimplementedSchedulerTests need Apple's `XCTExpectFailure` (see above).
rm "$work/cs/Tests/CombineSchedulersTests/UnimplementedSchedulerTests.swift"
# TimerTests leave out a MergeMany test on Linux, for OpenCombine, which lacks it; Untangle has it.
sed -i -E 's|#if !os\(Linux\)  // No Publishers.MergeMany in .*|#if true|' "$work/cs/Tests/CombineSchedulersTests/TimerTests.swift"
# `swift test` can exit 0 when the XCTest process dies (it goes on to the swift-testing run), so the XCTest summary
# is checked as well.
run_tests() {  # run_tests FOLDER SWIFT-TEST-OPTIONS...
    local folder="$1"
    shift
    (cd "$folder" && swift test --skip-build "$@" 2>&1 | tee "$folder/test.log")
    grep -qE "Test Suite '(All|Selected) tests' passed" "$folder/test.log" || {
        echo "client package tests failed in $folder" >&2
        exit 1
    }
}

(cd "$work/cs" && swift build --build-tests "$@")
run_tests "$work/cs" --skip testRunsOnMain "$@"

echo "== GRDB.swift 7.10.0 (its Combine tests)"
clone https://github.com/groue/GRDB.swift 7.10.0 "$work/grdb-src"
mkdir -p "$work/grdb/Sources" "$work/grdb/Tests/Support"
cp -r "$work/grdb-src/GRDB" "$work/grdb/"
cp -r "$work/grdb-src/Sources/GRDBSQLite" "$work/grdb/Sources/"
cp -r "$work/grdb-src/Tests/CombineExpectations" "$work/grdb-src/Tests/GRDBCombineTests" "$work/grdb/Tests/"
cp "$work/grdb-src/Tests/GRDBTests/ValueObservationRecorder.swift" "$work/grdb-src/Tests/GRDBTests/GRDBTestCase.swift" \
    "$work/grdb/Tests/Support/"
sed -i 's/^let testBundle = Bundle.module$/let testBundle = Bundle.main/' "$work/grdb/Tests/Support/GRDBTestCase.swift"
to_untangle "$work/grdb/GRDB" "$work/grdb/Tests"
cat >"$work/grdb/Package.swift" <<EOF
// swift-tools-version: 6.1
import PackageDescription
// GRDB's own settings on Linux (its manifest): FTS5 and snapshots on, snapshots off where the distribution lacks them.
let settings: [SwiftSetting] = [
    .define("SQLITE_ENABLE_FTS5"), .define("SQLITE_ENABLE_SNAPSHOT"), .define("SQLITE_DISABLE_SNAPSHOT"),
]
let package = Package(
    name: "grdb-on-untangle",
    dependencies: [.package(name: "Untangle", path: "$root")],
    targets: [
        .systemLibrary(name: "GRDBSQLite", path: "Sources/GRDBSQLite", providers: [.apt(["libsqlite3-dev"])]),
        .target(
            name: "GRDB", dependencies: ["GRDBSQLite", .product(name: "Untangle", package: "Untangle")],
            path: "GRDB", exclude: ["PrivacyInfo.xcprivacy"], swiftSettings: settings),
        .testTarget(
            name: "GRDBCombineTests", dependencies: ["GRDB", .product(name: "Untangle", package: "Untangle")],
            path: "Tests", swiftSettings: settings + [.swiftLanguageMode(.v5)]),
    ],
    swiftLanguageModes: [.v6]
)
EOF
(cd "$work/grdb" && swift build --build-tests "$@")
run_tests "$work/grdb" --skip testDefaultSchedulerFirstValueIsEmittedAsynchronously "$@"
echo "client packages: combine-schedulers and GRDB's Combine tests pass on Untangle"
