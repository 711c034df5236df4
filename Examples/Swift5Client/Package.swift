// swift-tools-version:6.0
//
// A Swift 5 language mode client of Untangle, written as most existing Combine app code is (issue 29): `@MainActor`
// view models with pure `map`/`filter`/`compactMap` before the hop to the main queue, `@Published` with
// `assign(to:)`, UntangleExtras' operators before the hop, and a `sink` in a `@MainActor` XCTest case fed from
// `DispatchQueue.concurrentPerform`. With Apple's Combine this code runs: Swift 5 inserts no isolation checks. It must
// run clean with Untangle too (Scripts/check-swift5-client.sh, a CI step). Examples/Swift6Client is the Swift 6
// counterpart, where the compiler does stop main-actor closures run off the main actor.
import PackageDescription

let package = Package(
    name: "Swift5Client",
    platforms: [.macOS(.v13)],
    dependencies: [.package(name: "Untangle", path: "../..")],
    targets: [
        .target(
            name: "Swift5Client",
            dependencies: [
                .product(name: "Untangle", package: "Untangle"), .product(name: "UntangleExtras", package: "Untangle"),
            ],
            swiftSettings: [.unsafeFlags(["-warnings-as-errors"])]),
        .testTarget(
            name: "Swift5ClientTests",
            dependencies: [
                "Swift5Client", .product(name: "Untangle", package: "Untangle"),
                .product(name: "UntangleExtras", package: "Untangle"),
            ]),
    ],
    swiftLanguageModes: [.v5]
)
