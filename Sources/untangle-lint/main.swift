// `untangle-lint`: the linter as its own executable, so that swift-syntax is built only by those who lint. The
// `untangle lint` subcommand runs this binary (built beside `untangle`).

import Foundation
import UntangleLint

let outcome = LintCommand.run(
    arguments: Array(CommandLine.arguments.dropFirst()), progress: isatty(STDERR_FILENO) != 0)
FileHandle.standardOutput.write(Data(outcome.output.utf8))
FileHandle.standardError.write(Data(outcome.messages.utf8))
exit(outcome.status)
