// `untangle lint`: runs the `untangle-lint` executable found beside this binary, passing every argument through.
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
                does not build). Build it once with: \(LintForwardCommand.buildCommand)
                """)
    }

    static let buildCommand = "swift build -c release --product untangle-lint"

    @Argument(parsing: .allUnrecognized, help: "Paths and options for untangle-lint (see untangle-lint --help).")
    var arguments: [String] = []

    func run() throws {
        let here = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        let linter = here.deletingLastPathComponent().appendingPathComponent("untangle-lint")
        guard FileManager.default.isExecutableFile(atPath: linter.path) else {
            var message = "error: untangle lint needs the untangle-lint executable beside \(here.path), "
            message += "which is not built yet. Build it once (it compiles swift-syntax, a few minutes), then run "
            message += "untangle lint again:\n    \(Self.buildCommand)\n"
            message += "(or lint directly: swift run -c release untangle-lint \(arguments.joined(separator: " ")))\n"
            FileHandle.standardError.write(Data(message.utf8))
            throw ExitCode(2)
        }
        let process = Process()
        process.executableURL = linter
        process.arguments = arguments
        try process.run()
        process.waitUntilExit()
        throw ExitCode(process.terminationStatus)
    }
}
