// swift-tools-version:6.0
//
// Random pipelines, run on Untangle and on OpenCombine 0.14.0 from one source, their event logs compared: a separate
// package (users of Untangle never build OpenCombine), as Benchmarks/ is. See README.md and run.sh.
//
// The same source (Sources/Pipelines/Pipelines.swift, symlinked into both executables) is compiled against Untangle
// (`diff-untangle`) and against OpenCombine (`diff-opencombine`, with `-D OPENCOMBINE`).
import PackageDescription

let package = Package(
    name: "UntangleDifferential",
    dependencies: [
        .package(name: "Untangle", path: ".."),
        .package(url: "https://github.com/OpenCombine/OpenCombine", exact: "0.14.0"),
    ],
    targets: [
        .executableTarget(
            name: "diff-untangle",
            dependencies: [.product(name: "Untangle", package: "Untangle")],
            path: "Sources/diff-untangle"),
        .executableTarget(
            name: "diff-opencombine",
            dependencies: [.product(name: "OpenCombine", package: "OpenCombine")],
            path: "Sources/diff-opencombine",
            swiftSettings: [.define("OPENCOMBINE")]),
    ],
    swiftLanguageModes: [.v5]
)
