// swift-tools-version:6.0
//
// The swift-syntax tools: `untangle-lint` (the linter, `untangle lint`) and its `migrate` subcommand (`untangle
// migrate`). A package of their own inside the repository, so that the root package (the libraries and the `untangle`
// tool) depends on no swift-syntax: a package that depends on Untangle for its libraries never resolves or checks it
// out. `untangle lint` and `untangle migrate` build this package on first use (Sources/untangle/LintCommand.swift).
//
// swift-syntax 603.x matches Swift 6.3 (its major version follows the compiler's), so the linter parses exactly the
// language the toolchain compiles. UntangleSync comes from the root package (`..`).
import PackageDescription

let package = Package(
    name: "UntangleLint",
    platforms: [.macOS(.v13)],
    products: [
        .executable(name: "untangle-lint", targets: ["untangle-lint"])
    ],
    dependencies: [
        .package(name: "Untangle", path: ".."),
        .package(url: "https://github.com/swiftlang/swift-syntax", from: "603.0.1"),
    ],
    targets: [
        .target(
            name: "UntangleLint",
            dependencies: [
                .product(name: "UntangleSync", package: "Untangle"),
                .product(name: "SwiftSyntax", package: "swift-syntax"),
                .product(name: "SwiftParser", package: "swift-syntax"),
            ]
        ),
        .executableTarget(name: "untangle-lint", dependencies: ["UntangleLint"]),
        .testTarget(name: "UntangleLintTests", dependencies: ["UntangleLint"]),
    ],
    swiftLanguageModes: [.v6]
)
