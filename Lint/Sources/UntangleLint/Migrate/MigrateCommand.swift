// `untangle migrate [options] <paths...>`: argument parsing, file discovery, the two parallel passes (gather every
// file's declarations, then rewrite each file knowing all of them), writing in place or printing a diff, the
// reports, and the exit status (0 all rewritten, 1 spots left for a person, 2 bad usage). Free of ArgumentParser,
// like the lint command, so that the tests drive it with an argument array.

import Dispatch
import Foundation
import SwiftParser
import SwiftSyntax
import UntangleSync

/// The migration's command line.
package struct MigrateCommand {
    package var paths: [String] = []
    package var dryRun = false
    package var json = false
    package var quiet = false
    package var help = false

    package static let usage = """
        USAGE: untangle migrate [options] <paths...>

        Rewrites RxSwift code onto Untangle and UntangleExtras, keeping what it does: types, subjects and relays,
        DisposeBag and disposed(by:), subscribe/bind/drive, creation, operators (retry(n) counts like RxSwift's),
        traits, and schedulers (MainScheduler.instance runs in line on the main thread, as before). Files that do not
        import RxSwift, RxCocoa or RxRelay are left alone, so a second run changes nothing. What cannot be rewritten
        safely is marked in the file with a `// untangle-migrate: <what to decide>` line above it.
        Paths are Swift files or folders (hidden and .build* folders are skipped).

        OPTIONS:
          --dry-run         Change no file: print what would change as a unified diff (patch -p0 applies it).
          --report json     Print a JSON report: every rewrite, every spot left, the RxSwift constructs counted
                            before and after per file, and the speed.
          --quiet           No summary line on stderr.
          -h, --help        Show this help.

        Review: run with --dry-run first, read the diff, then run without it (under version control) and
        `grep -rn "untangle-migrate:"` for the spots left.
        Exit status: 0 everything was rewritten, 1 spots were left (marked in the files), 2 bad usage or unreadable
        input.
        """

    /// Parses arguments (without `migrate` and the program name).
    package init(arguments: [String]) throws(LintError) {
        var iterator = arguments.makeIterator()
        while let argument = iterator.next() {
            switch argument {
            case "--dry-run": dryRun = true
            case "--report":
                guard let format = iterator.next() else { throw .usage("--report needs a value (json)") }
                guard format == "json" else { throw .usage("unknown report format '\(format)' (json)") }
                json = true
            case "--quiet": quiet = true
            case "-h", "--help": help = true
            default:
                if argument.hasPrefix("-") { throw .usage("unknown option '\(argument)'\n\n\(Self.usage)") }
                paths.append(argument)
            }
        }
        if paths.isEmpty && !help { throw .usage("no paths given\n\n\(Self.usage)") }
    }

    /// What a run produced: stdout, stderr, the exit status, and the migrations (for tests).
    package struct Outcome: Sendable {
        package var output = ""
        package var messages = ""
        package var status: Int32 = 0
        package var files: [FileMigration] = []
        package var seconds = 0.0
        /// The CPU time the run took (every thread's): what the speed is on an idle machine, whatever the load.
        package var cpuSeconds = 0.0
    }

    /// Runs the command line `arguments`; never exits the process.
    package static func run(arguments: [String]) -> Outcome {
        do {
            return try MigrateCommand(arguments: arguments).run()
        } catch {
            return Outcome(output: "", messages: "error: \(error.message)\n", status: 2)
        }
    }

    package func run() throws(LintError) -> Outcome {
        var outcome = Outcome()
        if help {
            outcome.output = Self.usage + "\n"
            return outcome
        }
        let files = try discover()
        let start = DispatchTime.now().uptimeNanoseconds
        let cpuStart = Self.cpuTime()
        let migrations = try Self.migrate(files, countConstructs: json)
        if !dryRun {
            for migration in migrations where migration.changed {
                do {
                    try migration.migrated.write(toFile: migration.path, atomically: true, encoding: .utf8)
                } catch {
                    throw .usage("cannot write '\(migration.path)'")
                }
            }
        }
        outcome.seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        outcome.cpuSeconds = Self.cpuTime() - cpuStart
        outcome.files = migrations
        let spots = migrations.flatMap(\.spots)
        if json {
            outcome.output = MigrationReport.json(
                migrations, seconds: outcome.seconds, cpuSeconds: outcome.cpuSeconds, includeDiffs: dryRun)
        } else if dryRun {
            outcome.output = migrations.map { UnifiedDiff.make(old: $0.original, new: $0.migrated, path: $0.path) }
                .joined()
        } else {
            outcome.output = spots.map {
                "\($0.path):\($0.line):\($0.column): warning: \(migrationMarker) \($0.reason)\n"
            }
            .joined()
        }
        if !quiet {
            outcome.messages += MigrationReport.summary(
                migrations, seconds: outcome.seconds, cpuSeconds: outcome.cpuSeconds, dryRun: dryRun)
        }
        outcome.status = spots.isEmpty ? 0 : 1
        return outcome
    }

    /// The process's CPU time so far (user and system, every thread), in seconds.
    static func cpuTime() -> Double {
        var usage = rusage()
        #if canImport(Glibc)
            let who = RUSAGE_SELF.rawValue
        #else
            let who = RUSAGE_SELF
        #endif
        guard getrusage(Int32(who), &usage) == 0 else { return 0 }
        func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1e6 }
        return seconds(usage.ru_utime) + seconds(usage.ru_stime)
    }

    /// The Swift files under `paths`, sorted; hidden folders and build folders (`.build*`) are skipped.
    private func discover() throws(LintError) -> [String] {
        let manager = FileManager.default
        var files: [String] = []
        for path in paths {
            var isDirectory: ObjCBool = false
            guard manager.fileExists(atPath: path, isDirectory: &isDirectory), manager.isReadableFile(atPath: path)
            else {
                throw .usage("cannot read '\(path)': no such file or folder, or not readable")
            }
            guard isDirectory.boolValue else {
                files.append(path)
                continue
            }
            guard let enumerator = manager.enumerator(atPath: path) else { throw .usage("cannot read '\(path)'") }
            while let relative = enumerator.nextObject() as? String {
                if relative.split(separator: "/").contains(where: { $0.hasPrefix(".") }) { continue }
                if relative.hasSuffix(".swift") { files.append((path as NSString).appendingPathComponent(relative)) }
            }
        }
        return Array(Set(files)).sorted()
    }

    /// Migrates `files` in two parallel passes: every file's facts first (a relay declared in one file is known
    /// where another binds to it), then each file's rewrite.
    package static func migrate(_ files: [String], countConstructs: Bool = true) throws(LintError) -> [FileMigration] {
        let sources = LockedBox(
            [(text: String, tree: SourceFileSyntax, facts: MigrationFacts)?](repeating: nil, count: files.count))
        let factsBox = LockedBox(MigrationFacts())
        let failures = LockedBox([String]())
        DispatchQueue.concurrentPerform(iterations: files.count) { index in
            guard let data = FileManager.default.contents(atPath: files[index]) else {
                failures.withLock { $0.append(files[index]) }
                return
            }
            let source = String(decoding: data, as: UTF8.self)
            // Only RxSwift files are rewritten, but every file's declarations count (a view model's relay may be
            // declared in a file that imports RxRelay only). The tree is kept for the second pass.
            let tree = Parser.parse(source: source)
            let facts = Migrator.isRxFile(tree) ? MigrationFacts(tree) : MigrationFacts()
            sources.withLock { $0[index] = (source, tree, facts) }
            factsBox.withLock { $0.merge(facts) }
        }
        if let failed = failures.withLock({ $0.sorted().first }) { throw .usage("cannot read '\(failed)'") }
        let facts = factsBox.withLock { $0 }
        let texts = sources.withLock { $0 }
        let results = LockedBox([FileMigration?](repeating: nil, count: files.count))
        DispatchQueue.concurrentPerform(iterations: files.count) { index in
            guard let (text, tree, fileFacts) = texts[index] else { return }
            let migration = Migrator.migrate(
                source: text, path: files[index], facts: facts, tree: tree, fileFacts: fileFacts,
                countConstructs: countConstructs)
            results.withLock { $0[index] = migration }
        }
        return results.withLock { $0.compactMap { $0 } }
    }
}
