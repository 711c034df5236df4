// swift-tools-version:6.0
//
// A Swift 6 client of Untangle written as app code is written (issues 19 and 29): `@MainActor` view models with
// `@Published`, `sink`, `assign`, `store(in:)`, `values` in a task, subjects sent from task groups. Built with
// warnings as errors by Scripts/check-swift6-client.sh; its tests run the probe executable in child processes to show
// Swift's own isolation check stopping main-actor closures run off the main actor (as with Apple's Combine), and
// nothing stopping `@Sendable`, nonisolated or post-hop closures. Examples/Swift5Client is its Swift 5 counterpart.
import PackageDescription

let strict: [SwiftSetting] = [.unsafeFlags(["-warnings-as-errors"])]

let package = Package(
    name: "Swift6Client",
    platforms: [.macOS(.v13)],
    dependencies: [.package(name: "Untangle", path: "../..")],
    targets: [
        .target(
            name: "Swift6Client",
            dependencies: [
                .product(name: "Untangle", package: "Untangle"), .product(name: "UntangleExtras", package: "Untangle"),
            ],
            swiftSettings: strict),
        .executableTarget(
            name: "Swift6ClientProbe", dependencies: ["Swift6Client", .product(name: "Untangle", package: "Untangle")],
            swiftSettings: strict),
        .testTarget(name: "Swift6ClientTests", dependencies: ["Swift6ClientProbe"], swiftSettings: strict),
    ],
    swiftLanguageModes: [.v6]
)
