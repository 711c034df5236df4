// swift-tools-version:6.0
//
// A Swift 6 client of Untangle written as app code is written (issue 19 part 4): `@MainActor` view models with
// `@Published`, `sink`, `assign`, `store(in:)`, `values` in a task, subjects sent from task groups. Built with
// warnings as errors by Scripts/check-swift6-client.sh; its tests run the probe executable in a child process to show
// the isolation check stopping the unsafe pattern and staying silent on the safe ones.
import PackageDescription

let strict: [SwiftSetting] = [.unsafeFlags(["-warnings-as-errors"])]

let package = Package(
    name: "Swift6Client",
    platforms: [.macOS(.v13)],
    dependencies: [.package(name: "Untangle", path: "../..")],
    targets: [
        .target(
            name: "Swift6Client", dependencies: [.product(name: "Untangle", package: "Untangle")], swiftSettings: strict
        ),
        .executableTarget(
            name: "Swift6ClientProbe", dependencies: ["Swift6Client", .product(name: "Untangle", package: "Untangle")],
            swiftSettings: strict),
        .testTarget(name: "Swift6ClientTests", dependencies: ["Swift6ClientProbe"], swiftSettings: strict),
    ],
    swiftLanguageModes: [.v6]
)
