// swift-tools-version:6.0
//
// Untangle: Apple Combine's API, thread-safe by construction, on Linux and Apple platforms.
//
// Dependencies: swift-argument-parser, only for the `untangle` command-line tool, and swift-docc-plugin, a command
// plugin that builds the documentation site (neither is linked into a library product). swift-syntax (SwiftSyntax
// and SwiftParser only) is used by the linter alone: the `untangle-lint` executable and its `UntangleLint` target.
// No library product and not the `untangle` tool depend on it, so library users and `swift run untangle stress`
// never build it; `untangle lint` runs the `untangle-lint` binary built beside it. 603.x is the swift-syntax that
// matches Swift 6.3 (swift-syntax's major version follows the compiler's: 600 = 6.0, 602 = 6.2, 603 = 6.3), so the
// linter parses exactly the language the toolchain compiles.
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
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.4.0"),
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

// The linter. UNTANGLE_NO_LINT=1 leaves it out, for builds that need none of it and would otherwise compile
// swift-syntax with everything (`swift build --build-tests`), such as CI's ThreadSanitizer and locked-word builds.
if Context.environment["UNTANGLE_NO_LINT"] == nil {
    package.products.append(.executable(name: "untangle-lint", targets: ["untangle-lint"]))
    package.dependencies.append(.package(url: "https://github.com/swiftlang/swift-syntax", from: "603.0.1"))
    package.targets += [
        .target(
            name: "UntangleLint",
            dependencies: [
                "UntangleSync",
                .product(name: "SwiftSyntax", package: "swift-syntax"),
                .product(name: "SwiftParser", package: "swift-syntax"),
            ]
        ),
        .executableTarget(name: "untangle-lint", dependencies: ["UntangleLint"]),
        .testTarget(name: "UntangleLintTests", dependencies: ["UntangleLint"]),
    ]
}
