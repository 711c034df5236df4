// swift-tools-version:6.0
//
// The migration parity check (issue 30): each RxSwift program in RxSwift/ (kept as text, never built: RxSwift is not
// a dependency) is copied to Migrated/<Name>/main.swift and rewritten there by `untangle-lint migrate`; this package
// builds each migrated program as an executable against Untangle in Swift 5 language mode (what most apps leaving
// RxSwift compile in), and Scripts/check-migration-parity.sh runs it and compares its output with Expected/<Name>.txt,
// what the RxSwift program prints.
import Foundation
import PackageDescription

let here = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
let programs =
    ((try? FileManager.default.contentsOfDirectory(atPath: here.appendingPathComponent("RxSwift").path)) ?? [])
    .filter { $0.hasSuffix(".swift") }
    .map { String($0.dropLast(".swift".count)) }
    .sorted()

let package = Package(
    name: "MigrationParity",
    platforms: [.macOS(.v13)],
    dependencies: [.package(name: "Untangle", path: "../..")],
    targets: programs.map { name in
        .executableTarget(
            name: name,
            dependencies: [
                .product(name: "Untangle", package: "Untangle"),
                .product(name: "UntangleExtras", package: "Untangle"),
            ],
            path: "Migrated/\(name)")
    },
    swiftLanguageModes: [.v5]
)
