// `untangle lint`: runs the `untangle-lint` executable found beside this binary (building it on first use from a
// checkout), passing every argument through.
// The linter is a separate executable because it needs swift-syntax: `swift run untangle stress` (and every library
// user) never builds swift-syntax; only those who lint do, once.

import ArgumentParser
import Foundation

struct LintForwardCommand: ParsableCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            commandName: "lint",
            abstract: "Find the threading pitfalls of Combine, RxSwift and GCD code (runs untangle-lint).",
            discussion: """
                Lints Swift sources by syntax alone (no build of the linted code): Set<AnyCancellable> filled from \
                other threads, barrier-queue reader/writers, DispatchQueue.main.sync, semaphore waits in pool work, \
                retain cycles through sink and assign(to:on:), discarded cancellables, unlocked custom \
                Subscriptions, scheduler misuse, eager Futures, and RxSwift's counterparts. \
                `untangle lint --help` after building shows the linter's own options (reporters, configuration, \
                baseline, --fix).

                The linter is the separate executable untangle-lint (it needs swift-syntax, which `untangle stress` \
                does not build); the first `untangle lint` from a checkout builds it (or: \
                \(LintForwardCommand.buildCommand)).
                """)
    }

    static let buildCommand = "swift build -c release --product untangle-lint"

    @Argument(parsing: .allUnrecognized, help: "Paths and options for untangle-lint (see untangle-lint --help).")
    var arguments: [String] = []

    func run() throws {
        let here = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        let binDirectory = here.deletingLastPathComponent()
        let linter = binDirectory.appendingPathComponent("untangle-lint")
        if !FileManager.default.isExecutableFile(atPath: linter.path) {
            try buildLinter(beside: here)
        }
        guard FileManager.default.isExecutableFile(atPath: linter.path) else {
            var message = "error: untangle lint needs the untangle-lint executable beside \(here.path), "
            message += "which is not built. Build it once (it compiles swift-syntax, a few minutes), then run "
            message += "untangle lint again:\n    \(Self.buildCommand)\n"
            FileHandle.standardError.write(Data(message.utf8))
            throw ExitCode(2)
        }
        try runLinter(linter)
    }

    private func runLinter(_ linter: URL) throws {
        let process = Process()
        process.executableURL = linter
        process.arguments = arguments
        try process.run()
        process.waitUntilExit()
        throw ExitCode(process.terminationStatus)
    }

    // The first `untangle lint` from a checkout builds the linter itself, into the build folder this binary came from
    // (`<scratch>/<triple>/<configuration>/untangle`), with the package found from this source file's path. A binary
    // copied elsewhere, or a checkout that moved, finds no package and gets the error with the command instead.
    private func buildLinter(beside binary: URL) throws {
        let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let manifest = packageRoot.appendingPathComponent("Package.swift")
        let binDirectory = binary.deletingLastPathComponent()
        let configuration = binDirectory.lastPathComponent
        let scratch = binDirectory.deletingLastPathComponent().deletingLastPathComponent()
        guard FileManager.default.fileExists(atPath: manifest.path), ["debug", "release"].contains(configuration)
        else { return }
        let note = "untangle lint: building the linter once (swift-syntax; a few minutes)...\n"
        FileHandle.standardError.write(Data(note.utf8))
        let build = Process()
        build.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        build.arguments = [
            "swift", "build", "-c", configuration, "--product", "untangle-lint", "--package-path", packageRoot.path,
            "--scratch-path", scratch.path,
        ]
        build.standardOutput = FileHandle.standardError
        try build.run()
        build.waitUntilExit()
    }
}
