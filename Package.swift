// swift-tools-version:6.0
//
// Untangle: Apple Combine's API, thread-safe by construction, on Linux and Apple platforms.
//
// Dependencies: the libraries (Untangle, UntangleExtras, UntangleTesting, UntangleSync) need nothing but the Swift
// toolchain; swift-argument-parser is the `untangle` tool's command-line parsing (`untangle stress`). The swift-syntax
// tools (`untangle lint`, `untangle migrate`) are a package of their own in Lint/, built on first use, and the
// documentation plugin is added only for Scripts/build-docs.sh (UNTANGLE_DOCS=1, below): a package that depends on
// Untangle resolves swift-argument-parser and nothing else.
import PackageDescription

// The two modules whose public API takes user closures, Untangle and UntangleExtras, are compiled in Swift 5 language
// mode, as Apple's Combine is seen by its clients. That is what makes the compiler treat a closure the same way for
// both libraries (ThreadSafety.md, "Actor isolation"): a Swift 6 client's closure formed on an actor gets Swift's own
// isolation check (it stops the program when called off that actor), a Swift 5 client's or a `@Sendable` closure
// gets none. The library code itself keeps Swift 6's checking: complete strict concurrency and every feature the
// Swift 6 mode enables are turned on, and CI builds with warnings as errors, so a data-race diagnostic fails CI as it
// would in Swift 6 mode.
let swift6CheckedInSwift5Mode: [SwiftSetting] =
    [.swiftLanguageMode(.v5)]
    + [
        "ConciseMagicFile", "ForwardTrailingClosures", "StrictConcurrency", "BareSlashRegexLiterals",
        "DeprecateApplicationMain", "ImportObjcForwardDeclarations", "DisableOutwardActorInference",
        "IsolatedDefaultValues", "GlobalConcurrency", "InferSendableFromCaptures", "ImplicitOpenExistentials",
        "RegionBasedIsolation", "DynamicActorIsolation", "NonfrozenEnumExhaustivity",
        "GlobalActorIsolatedTypesUsability",
    ].map { .enableUpcomingFeature($0) }

let package = Package(
    name: "Untangle",
    platforms: [.macOS(.v10_15), .iOS(.v13), .tvOS(.v13), .watchOS(.v6)],
    products: [
        .library(name: "Untangle", targets: ["Untangle"]),
        .library(name: "UntangleExtras", targets: ["UntangleExtras"]),
        .library(name: "UntangleTesting", targets: ["UntangleTesting"]),
        .library(name: "UntangleSync", targets: ["UntangleSync"]),
        .executable(name: "untangle", targets: ["untangle"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0")
    ],
    targets: [
        .target(name: "UntangleSync"),
        .target(name: "Untangle", dependencies: ["UntangleSync"], swiftSettings: swift6CheckedInSwift5Mode),
        .target(
            name: "UntangleExtras", dependencies: ["Untangle", "UntangleSync"], swiftSettings: swift6CheckedInSwift5Mode
        ),
        .target(name: "UntangleTesting", dependencies: ["Untangle", "UntangleSync"]),
        .executableTarget(
            name: "untangle",
            dependencies: [
                "Untangle", "UntangleExtras", "UntangleSync",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // The test suites' one fixture family (Recorder, ManualPublisher, watchdogs, the leak check), shared by the
        // test targets; not a product.
        .target(
            name: "UntangleTestSupport",
            dependencies: ["Untangle", "UntangleSync", "UntangleTesting"],
            path: "Tests/UntangleTestSupport"),
        .testTarget(name: "UntangleSyncTests", dependencies: ["UntangleSync", "UntangleTestSupport"]),
        .testTarget(
            name: "UntangleTests", dependencies: ["Untangle", "UntangleSync", "UntangleTesting", "UntangleTestSupport"]),
        .testTarget(
            name: "UntangleExtrasTests",
            dependencies: ["UntangleExtras", "Untangle", "UntangleSync", "UntangleTesting", "UntangleTestSupport"]),
        .testTarget(
            name: "UntangleTestingTests",
            dependencies: ["UntangleTesting", "Untangle", "UntangleExtras", "UntangleSync"]),
    ],
    swiftLanguageModes: [.v6]
)

// The documentation site's plugin (Scripts/build-docs.sh sets UNTANGLE_DOCS=1): only then is it a dependency, so a
// package that depends on Untangle's libraries resolves none of it.
if Context.environment["UNTANGLE_DOCS"] != nil {
    package.dependencies.append(.package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.4.0"))
}
