// The `untangle` command-line tool. Its main job is `untangle stress`: Untangle's threading guarantees, run as a
// live check on the machine at hand. It uses only the public API of Untangle, UntangleExtras and UntangleSync, so
// it is also an example of using them from several threads.

import ArgumentParser

@main
struct UntangleCommand: ParsableCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            commandName: "untangle",
            abstract: "Tools for Untangle, Apple Combine's API made thread-safe by construction.",
            subcommands: [StressCommand.self, LintForwardCommand.self, MigrateForwardCommand.self],
            defaultSubcommand: StressCommand.self)
    }
}
