// `untangle lint`: runs the `untangle-lint` executable (found beside this binary, or in the checkout's Lint package,
// building it there on first use), passing every argument through.
// The linter is a separate executable in a package of its own (Lint/) because it needs swift-syntax: `swift run
// untangle stress` (and every library user) never resolves or builds swift-syntax; only those who lint do, once.

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

    static let buildCommand = "swift build -c release --package-path Lint --product untangle-lint"

    @Argument(parsing: .allUnrecognized, help: "Paths and options for untangle-lint (see untangle-lint --help).")
    var arguments: [String] = []

    func run() throws {
        let here = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        let beside = here.deletingLastPathComponent().appendingPathComponent("untangle-lint")
        if FileManager.default.isExecutableFile(atPath: beside.path) {
            try runLinter(beside)
        }
        guard let checkout = Self.lintPackage(for: here) else {
            var message = "error: untangle lint needs the untangle-lint executable, which is neither beside "
            message += "\(here.path) nor in a checkout of Untangle. From a checkout, build it once (it compiles "
            message += "swift-syntax, a few minutes), then run untangle lint again:\n    \(Self.buildCommand)\n"
            FileHandle.standardError.write(Data(message.utf8))
            throw ExitCode(2)
        }
        if !FileManager.default.isExecutableFile(atPath: checkout.linter.path) {
            try buildLinter(checkout)
        }
        guard FileManager.default.isExecutableFile(atPath: checkout.linter.path) else {
            var message = "error: building untangle-lint failed; build it once (it compiles swift-syntax, a few "
            message += "minutes), then run untangle lint again:\n    \(Self.buildCommand)\n"
            FileHandle.standardError.write(Data(message.utf8))
            throw ExitCode(2)
        }
        try runLinter(checkout.linter)
    }

    /// The checkout's Lint package (found from this source file's path) and the linter built there in the
    /// configuration of `binary` (`<scratch>/<triple>/<configuration>/untangle`; release when that is not known).
    /// Nil when there is no checkout: a binary copied elsewhere, or a checkout that moved.
    private static func lintPackage(for binary: URL) -> (package: URL, configuration: String, linter: URL)? {
        let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let lintPackage = packageRoot.appendingPathComponent("Lint")
        let manifest = lintPackage.appendingPathComponent("Package.swift")
        guard FileManager.default.fileExists(atPath: manifest.path) else { return nil }
        let folder = binary.deletingLastPathComponent().lastPathComponent
        let configuration = ["debug", "release"].contains(folder) ? folder : "release"
        let linter = lintPackage.appendingPathComponent(".build").appendingPathComponent(configuration)
            .appendingPathComponent("untangle-lint")
        return (lintPackage, configuration, linter)
    }

    private func runLinter(_ linter: URL) throws {
        let process = Process()
        process.executableURL = linter
        process.arguments = arguments
        try process.run()
        process.waitUntilExit()
        throw ExitCode(process.terminationStatus)
    }

    // The first `untangle lint` from a checkout builds the linter itself, in the Lint package's own build folder, in
    // the configuration of this binary.
    private func buildLinter(_ checkout: (package: URL, configuration: String, linter: URL)) throws {
        let note = "untangle lint: building the linter once (swift-syntax; a few minutes)...\n"
        FileHandle.standardError.write(Data(note.utf8))
        let build = Process()
        build.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        build.arguments = [
            "swift", "build", "-c", checkout.configuration, "--product", "untangle-lint", "--package-path",
            checkout.package.path,
        ]
        build.standardOutput = FileHandle.standardError
        try build.run()
        build.waitUntilExit()
    }
}
