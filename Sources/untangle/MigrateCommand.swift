// `untangle migrate`: runs `untangle-lint migrate` (the RxSwift-to-Untangle migration lives in the linter's
// executable: it needs swift-syntax), building the linter on first use exactly as `untangle lint` does, and passing
// every argument through.

import ArgumentParser

struct MigrateForwardCommand: ParsableCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            commandName: "migrate",
            abstract: "Rewrite RxSwift code onto Untangle, keeping what it does (runs untangle-lint migrate).",
            discussion: """
                USAGE: untangle migrate [--dry-run] [--report json] [--quiet] <paths...>

                Rewrites, in place, the Swift files under the paths that import RxSwift, RxCocoa or RxRelay: \
                types, subjects and relays, DisposeBag and disposed(by:), subscribe/bind/drive, creation, \
                operators (retry(n) counts like RxSwift's), traits and schedulers (MainScheduler.instance keeps \
                running in line on the main thread, through UntangleExtras' MainThreadScheduler). What it cannot \
                rewrite safely it marks with a `// untangle-migrate: <what to decide>` line. A second run changes \
                nothing.

                --dry-run prints what would change as a unified diff and writes nothing; --report json prints every \
                rewrite and spot, the RxSwift constructs counted before and after per file, and the speed. Exit \
                status: 0 everything rewritten, 1 spots left, 2 bad usage. `untangle-lint migrate --help` shows \
                the same.

                The migration runs in the separate executable untangle-lint (it needs swift-syntax, which `untangle \
                stress` does not build); the first `untangle migrate` from a checkout builds it (or: \
                \(LintForwardCommand.buildCommand)).
                """)
    }

    @Argument(parsing: .allUnrecognized, help: "Paths and options for untangle-lint migrate.")
    var arguments: [String] = []

    func run() throws {
        // The same binary, found (and built on first use) the same way as `untangle lint`'s.
        var forward = LintForwardCommand()
        forward.arguments = ["migrate"] + arguments
        try forward.run()
    }
}
