// `untangle-lint`: the linter as its own executable, so that swift-syntax is built only by those who lint. The
// `untangle lint` subcommand runs this binary (built beside `untangle`); so does `untangle migrate`, as
// `untangle-lint migrate ...` (the RxSwift migration, which needs swift-syntax too).

import Foundation
import UntangleLint

let arguments = Array(CommandLine.arguments.dropFirst())
let outcome: (output: String, messages: String, status: Int32)
if arguments.first == "migrate" {
    let migration = MigrateCommand.run(arguments: Array(arguments.dropFirst()))
    outcome = (migration.output, migration.messages, migration.status)
} else {
    let lint = LintCommand.run(arguments: arguments, progress: isatty(STDERR_FILENO) != 0)
    outcome = (lint.output, lint.messages, lint.status)
}
FileHandle.standardOutput.write(Data(outcome.output.utf8))
FileHandle.standardError.write(Data(outcome.messages.utf8))
exit(outcome.status)
