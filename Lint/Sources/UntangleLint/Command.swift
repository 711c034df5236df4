// `untangle lint [options] [paths...]`: argument parsing, file discovery, the parallel run, reporting, baseline,
// --fix and the exit status (0 clean, 1 findings at error severity, 2 bad usage). Kept free of ArgumentParser so
// the tests drive it with an argument array and read its output.

import Dispatch
import Foundation
import UntangleSync

/// The linter's command line.
package struct LintCommand {
    package var paths: [String] = []
    package var reporter = Reporter.text
    package var configPath: String?
    package var baselinePath: String?
    package var writeBaselinePath: String?
    package var fix = false
    package var listRules = false
    package var quiet = false
    package var help = false
    /// Lint the files together: a first round gathers every file's declarations and the facts they tell each other
    /// (``CrossFileFacts``) before the rule walks. Keeps every parsed file in memory between the rounds.
    package var crossFile = false

    package static let usage = """
        USAGE: untangle lint [options] [paths...]

        Finds the threading pitfalls of Combine, RxSwift and GCD code (syntax only, no build needed).
        Paths are Swift files or folders (default: the current folder).

        OPTIONS:
          --reporter text|json|sarif|github   Output format (default: text, compiler style).
          --config FILE                       Configuration (default: .untangle-lint.json in the current folder).
          --baseline FILE                     Report only findings not in this baseline.
          --write-baseline FILE               Write the current findings as a baseline and exit 0.
          --fix                               Apply the mechanical fixes in place (only results that parse).
          --rules                             List the rules and exit.
          --quiet                             No progress or speed line on stderr.
          --cross-file                        Share facts between the files (types, off-main subjects): two rounds,
                                              every parsed file kept in memory (about 2 KB a line).
          -h, --help                          Show this help.

        In code: // untangle:disable:next <rule-id> -- reason   (also :this, and untangle:disable-file)
        Exit status: 0 no error-severity finding, 1 error-severity findings, 2 bad usage or unreadable input.
        """

    /// Parses arguments (without the program name).
    package init(arguments: [String]) throws(LintError) {
        var iterator = arguments.makeIterator()
        func value(_ option: String) throws(LintError) -> String {
            guard let next = iterator.next(), !next.hasPrefix("--") else {
                throw .usage("\(option) needs a value")
            }
            return next
        }
        while let argument = iterator.next() {
            switch argument {
            case "--reporter":
                let name = try value(argument)
                guard let chosen = Reporter(rawValue: name) else {
                    throw .usage("unknown reporter '\(name)' (text, json, sarif, github)")
                }
                reporter = chosen
            case "--config": configPath = try value(argument)
            case "--baseline": baselinePath = try value(argument)
            case "--write-baseline": writeBaselinePath = try value(argument)
            case "--fix": fix = true
            case "--rules": listRules = true
            case "--quiet": quiet = true
            case "--cross-file": crossFile = true
            case "-h", "--help": help = true
            default:
                if argument.hasPrefix("-") { throw .usage("unknown option '\(argument)'\n\n\(Self.usage)") }
                paths.append(argument)
            }
        }
        if paths.isEmpty { paths = ["."] }
    }

    /// What a run produced: the report (stdout), messages (stderr), the exit status.
    package struct Outcome: Sendable {
        package var output = ""
        package var messages = ""
        package var status: Int32 = 0
        package var findings: [Finding] = []
        package var files = 0
        package var lines = 0
    }

    /// Runs the command line `arguments`; never exits the process.
    package static func run(arguments: [String], progress: Bool = false) -> Outcome {
        do {
            let command = try LintCommand(arguments: arguments)
            return try command.run(progress: progress)
        } catch {
            return Outcome(output: "", messages: "error: \(error.message)\n", status: 2)
        }
    }

    package func run(progress: Bool = false) throws(LintError) -> Outcome {
        var outcome = Outcome()
        if help {
            outcome.output = Self.usage + "\n"
            return outcome
        }
        if listRules {
            outcome.output = Rules.all.map {
                "\($0.id) (\($0.severity.rawValue)\($0.enabledByDefault ? "" : ", off by default")): \($0.message)\n"
            }.joined()
            return outcome
        }
        let configuration = try loadConfiguration()
        let files = try discover(configuration: configuration)
        let ruleSet = configuration.ruleSet
        let baseline = try baselinePath.map { path throws(LintError) in try Baseline(contentsOf: path) }

        let start = DispatchTime.now().uptimeNanoseconds
        var results = try Self.lintFiles(files, rules: ruleSet, progress: progress, crossFile: crossFile)
        if fix {
            results = try applyFixes(results, rules: ruleSet, outcome: &outcome)
        }
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        var findings = results.flatMap(\.findings)
        outcome.files = files.count
        outcome.lines = results.reduce(0) { $0 + $1.lines }
        if let path = writeBaselinePath {
            guard FileManager.default.createFile(atPath: path, contents: Baseline.data(for: findings)) else {
                throw .usage("cannot write baseline '\(path)'")
            }
            outcome.messages += "Wrote \(findings.count) findings to the baseline \(path).\n"
            outcome.findings = findings
            return outcome
        }
        if let baseline { findings = baseline.filter(findings) }
        outcome.findings = findings
        outcome.output = reporter.render(findings)
        if !quiet {
            let rate = seconds > 0 ? Int(Double(outcome.lines) / seconds) : 0
            outcome.messages +=
                "Linted \(files.count) files (\(outcome.lines) lines) in \(String(format: "%.2f", seconds)) s: "
                + "\(rate) lines/s; \(findings.count) findings.\n"
        }
        outcome.status = findings.contains { $0.severity == .error } ? 1 : 0
        return outcome
    }

    private func loadConfiguration() throws(LintError) -> Configuration {
        var path = configPath
        if path == nil {
            let local = Configuration.fileName
            if FileManager.default.fileExists(atPath: local) { path = local }
        }
        guard let path else { return Configuration() }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw .usage("cannot read configuration '\(path)'")
        }
        let root = (path as NSString).deletingLastPathComponent
        return try Configuration(json: data, root: root.isEmpty ? "." : root)
    }

    /// The Swift files under `paths`, sorted, after the configuration's included/excluded; hidden folders and build
    /// folders (`.build*`) are skipped.
    private func discover(configuration: Configuration) throws(LintError) -> [String] {
        let manager = FileManager.default
        var files: [String] = []
        for path in paths {
            var isDirectory: ObjCBool = false
            guard manager.fileExists(atPath: path, isDirectory: &isDirectory), manager.isReadableFile(atPath: path)
            else {
                throw .usage("cannot read '\(path)': no such file or folder, or not readable")
            }
            if !isDirectory.boolValue {
                files.append(path)
                continue
            }
            guard let enumerator = manager.enumerator(atPath: path) else { throw .usage("cannot read '\(path)'") }
            while let relative = enumerator.nextObject() as? String {
                let components = relative.split(separator: "/")
                if components.contains(where: { $0.hasPrefix(".") }) { continue }
                if relative.hasSuffix(".swift") {
                    files.append(path == "." ? relative : (path as NSString).appendingPathComponent(relative))
                }
            }
        }
        let normalized = { (file: String) -> String in
            let root = configuration.root
            let standardized = (file as NSString).standardizingPath
            guard root != "." else { return standardized }
            let prefix = (root as NSString).standardizingPath + "/"
            return standardized.hasPrefix(prefix) ? String(standardized.dropFirst(prefix.count)) : standardized
        }
        func under(_ file: String, _ prefixes: [String]) -> Bool {
            prefixes.contains { prefix in
                let p = (prefix as NSString).standardizingPath
                return file == p || file.hasPrefix(p + "/")
            }
        }
        files = files.filter { file in
            let relative = normalized(file)
            if !configuration.included.isEmpty && !under(relative, configuration.included) { return false }
            return !under(relative, configuration.excluded)
        }
        return Array(Set(files)).sorted()
    }

    /// One file's result.
    package struct FileResult: Sendable {
        package var path: String
        package var source: String
        package var lines: Int
        package var findings: [Finding]
    }

    /// Lints the files in parallel (one work item per file on GCD's pool: parsing is CPU-bound and never blocks). With
    /// `crossFile`, in two rounds: each file is parsed and its declarations gathered, then, with what the files tell
    /// each other (``CrossFileFacts``: main-bound types declared in one file and subclassed in another, subjects sent
    /// off the main thread), each file's single rule walk runs. Without it, each file is parsed and walked at once,
    /// and dropped (a fraction of the memory, and about 15% less CPU: the tree is walked while still in the cache).
    package static func lintFiles(_ files: [String], rules: RuleSet, progress: Bool, crossFile: Bool = false)
        throws(LintError) -> [FileResult]
    {
        if !crossFile { return try lintEachAlone(files, rules: rules, progress: progress) }
        let contexts = LockedBox([FileContext?](repeating: nil, count: files.count))
        let failures = LockedBox([String]())
        DispatchQueue.concurrentPerform(iterations: files.count) { index in
            let path = files[index]
            guard let data = FileManager.default.contents(atPath: path) else {
                failures.withLock { $0.append(path) }
                return
            }
            let context = FileContext(path: path, source: String(decoding: data, as: UTF8.self))
            _ = context.declarations
            contexts.withLock { $0[index] = context }
        }
        if let failed = failures.withLock({ $0.sorted().first }) { throw .usage("cannot read '\(failed)'") }
        let parsed = contexts.withLock { $0.compactMap { $0 } }
        let facts = CrossFileFacts(files: parsed.map { ($0.path, $0.declarations) })
        let results = LockedBox([FileResult?](repeating: nil, count: parsed.count))
        let progressBar = ProgressBar(total: parsed.count, shown: progress)
        DispatchQueue.concurrentPerform(iterations: parsed.count) { index in
            let context = parsed[index]
            context.attach(facts)
            let findings = Linter.lint(context: context, rules: rules)
            let lines = context.source.utf8.reduce(0) { $0 + ($1 == UInt8(ascii: "\n") ? 1 : 0) }
            let result = FileResult(path: context.path, source: context.source, lines: lines, findings: findings)
            results.withLock { $0[index] = result }
            progressBar.advance()
        }
        return results.withLock { $0.compactMap { $0 } }
    }

    /// One round: each file parsed, walked and dropped by its work item.
    private static func lintEachAlone(_ files: [String], rules: RuleSet, progress: Bool) throws(LintError)
        -> [FileResult]
    {
        let results = LockedBox([FileResult?](repeating: nil, count: files.count))
        let failures = LockedBox([String]())
        let progressBar = ProgressBar(total: files.count, shown: progress)
        DispatchQueue.concurrentPerform(iterations: files.count) { index in
            let path = files[index]
            guard let data = FileManager.default.contents(atPath: path) else {
                failures.withLock { $0.append(path) }
                return
            }
            let source = String(decoding: data, as: UTF8.self)
            let findings = Linter.lint(source: source, path: path, rules: rules)
            let lines = source.utf8.reduce(0) { $0 + ($1 == UInt8(ascii: "\n") ? 1 : 0) }
            results.withLock { $0[index] = FileResult(path: path, source: source, lines: lines, findings: findings) }
            progressBar.advance()
        }
        if let failed = failures.withLock({ $0.sorted().first }) { throw .usage("cannot read '\(failed)'") }
        return results.withLock { $0.compactMap { $0 } }
    }

    /// Writes the fixed files (only those whose fixed text parses), then lints them again.
    private func applyFixes(_ results: [FileResult], rules: RuleSet, outcome: inout Outcome) throws(LintError)
        -> [FileResult]
    {
        var fixedPaths: [String] = []
        for result in results {
            guard let fixed = Linter.fixAll(source: result.source, path: result.path, rules: rules) else { continue }
            do {
                try fixed.write(toFile: result.path, atomically: true, encoding: .utf8)
            } catch {
                throw .usage("cannot write '\(result.path)'")
            }
            fixedPaths.append(result.path)
        }
        if !fixedPaths.isEmpty { outcome.messages += "Fixed \(fixedPaths.count) files.\n" }
        return try Self.lintFiles(results.map(\.path), rules: rules, progress: false, crossFile: crossFile)
    }
}

/// The `[####------] 50/200 files` line on stderr, for runs of 200 files or more on a terminal.
private final class ProgressBar: Sendable {
    private let total: Int
    private let shown: Bool
    private let done = LockedBox(0)

    init(total: Int, shown: Bool) {
        self.total = total
        self.shown = shown && total >= 200
    }

    func advance() {
        guard shown else { return }
        let count = done.withLock { value -> Int in
            value += 1
            return value
        }
        guard count % 50 == 0 || count == total else { return }
        let width = 30
        let filled = count * width / total
        let bar = String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled)
        FileHandle.standardError.write(Data("\r[\(bar)] \(count)/\(total) files".utf8))
        if count == total { FileHandle.standardError.write(Data("\n".utf8)) }
    }
}
