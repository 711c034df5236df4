// swift-tools-version:6.0
//
// Untangle's benchmarks: a separate package, so users of Untangle never build OpenCombine.
//
// The same workload source (Sources/Workloads/Workloads.swift, symlinked into both executables) is compiled against
// Untangle (`bench-untangle`) and against OpenCombine 0.14.0 (`bench-opencombine`, with `-D OPENCOMBINE`);
// `bench-baseline` does the same work with plain closures and loops. See README.md and run.sh.
import PackageDescription

// Operators whose workloads are written behind `#if UNTANGLE_HAS_<OP>` in Workloads.swift (added before the operator
// reached Untangle's main branch); all of them are merged now, so every flag is on.
let untangleOperatorFlags: [String] = [
    "UNTANGLE_HAS_FLATMAP",
    "UNTANGLE_HAS_COMBINELATEST",
    "UNTANGLE_HAS_ZIP",
    "UNTANGLE_HAS_RECEIVE_ON",
]

let package = Package(
    name: "UntangleBenchmarks",
    platforms: [.macOS(.v13)],
    dependencies: [
        .package(name: "Untangle", path: ".."),
        .package(url: "https://github.com/OpenCombine/OpenCombine", exact: "0.14.0"),
        // The async/await comparison (`values-map-filter`'s baseline: `(0..<n).async.map.filter`).
        .package(url: "https://github.com/apple/swift-async-algorithms", from: "1.0.0"),
    ],
    targets: [
        // Counts malloc calls (an interposer over glibc's allocator), for allocations per event.
        .target(name: "MallocCounter"),
        .target(name: "BenchSupport", dependencies: ["MallocCounter"]),
        .executableTarget(
            name: "bench-untangle",
            dependencies: [
                "BenchSupport",
                .product(name: "Untangle", package: "Untangle"),
                .product(name: "UntangleExtras", package: "Untangle"),
            ],
            path: "Sources/bench-untangle",
            swiftSettings: untangleOperatorFlags.map { .define($0) }
        ),
        .executableTarget(
            name: "bench-opencombine",
            dependencies: [
                "BenchSupport",
                .product(name: "OpenCombine", package: "OpenCombine"),
                .product(name: "OpenCombineDispatch", package: "OpenCombine"),
            ],
            path: "Sources/bench-opencombine",
            swiftSettings: [.define("OPENCOMBINE")]
        ),
        .executableTarget(
            name: "bench-baseline",
            dependencies: [
                "BenchSupport", .product(name: "AsyncAlgorithms", package: "swift-async-algorithms"),
            ],
            path: "Sources/bench-baseline"),
    ],
    swiftLanguageModes: [.v5]
)
