// swift-tools-version:6.0
//
// Untangle: Apple Combine's API, thread-safe by construction, on Linux and Apple platforms.
//
// Dependencies: swift-argument-parser, only for the `untangle` command-line tool, and swift-docc-plugin, a command
// plugin that builds the documentation site (neither is linked into a library product).
import PackageDescription

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
        .target(name: "Untangle", dependencies: ["UntangleSync"]),
        .target(name: "UntangleExtras", dependencies: ["Untangle", "UntangleSync"]),
        .target(name: "UntangleTesting", dependencies: ["Untangle", "UntangleSync"]),
        .executableTarget(
            name: "untangle",
            dependencies: [
                "Untangle", "UntangleExtras", "UntangleSync",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .testTarget(name: "UntangleSyncTests", dependencies: ["UntangleSync"]),
        .testTarget(name: "UntangleTests", dependencies: ["Untangle", "UntangleSync", "UntangleTesting"]),
        .testTarget(
            name: "UntangleExtrasTests",
            dependencies: ["UntangleExtras", "Untangle", "UntangleSync", "UntangleTesting"]),
        .testTarget(
            name: "UntangleTestingTests",
            dependencies: ["UntangleTesting", "Untangle", "UntangleExtras", "UntangleSync"]),
    ],
    swiftLanguageModes: [.v6]
)
