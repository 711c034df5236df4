// The migration's reports: the one-line summary on stderr (files, lines, speed, rewrites, spots) and `--report json`
// (every rewrite and spot, and per file whether it changed and parses and the RxSwift constructs counted before and
// after, which is what the corpus measurement adds up).

import Foundation

enum MigrationReport {
    struct FileEntry: Codable {
        var path: String
        var rxFile: Bool
        var changed: Bool
        var parses: Bool
        var lines: Int
        var rewrites: Int
        var spots: Int
        var constructsBefore: [String: Int]
        var constructsAfter: [String: Int]
        var diff: String?
    }

    struct Document: Codable {
        var files: Int
        var lines: Int
        var seconds: Double
        var linesPerSecond: Int
        var cpuSeconds: Double
        var linesPerCPUSecond: Int
        var rewrites: [MigrationRewrite]
        var spots: [MigrationSpot]
        var perFile: [FileEntry]
    }

    static func json(_ migrations: [FileMigration], seconds: Double, cpuSeconds: Double, includeDiffs: Bool) -> String {
        let lines = migrations.reduce(0) { $0 + $1.lines }
        let document = Document(
            files: migrations.count, lines: lines, seconds: seconds,
            linesPerSecond: seconds > 0 ? Int(Double(lines) / seconds) : 0, cpuSeconds: cpuSeconds,
            linesPerCPUSecond: cpuSeconds > 0 ? Int(Double(lines) / cpuSeconds) : 0,
            rewrites: migrations.flatMap(\.rewrites), spots: migrations.flatMap(\.spots),
            perFile: migrations.map {
                FileEntry(
                    path: $0.path, rxFile: $0.isRxFile, changed: $0.changed, parses: $0.parses, lines: $0.lines,
                    rewrites: $0.rewrites.count, spots: $0.spots.count, constructsBefore: $0.constructsBefore,
                    constructsAfter: $0.constructsAfter,
                    diff: includeDiffs && $0.changed
                        ? UnifiedDiff.make(old: $0.original, new: $0.migrated, path: $0.path) : nil)
            })
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        guard let data = try? encoder.encode(document) else { return "{}\n" }
        return String(decoding: data, as: UTF8.self) + "\n"
    }

    /// One line: files, lines, wall-clock and CPU time and the two rates (on a busy machine the CPU rate is the one
    /// that says how fast the migration is), what changed, the spots left.
    static func summary(_ migrations: [FileMigration], seconds: Double, cpuSeconds: Double, dryRun: Bool) -> String {
        let lines = migrations.reduce(0) { $0 + $1.lines }
        let rate = seconds > 0 ? Int(Double(lines) / seconds) : 0
        let cpuRate = cpuSeconds > 0 ? Int(Double(lines) / cpuSeconds) : 0
        let changed = migrations.filter(\.changed).count
        let rewrites = migrations.reduce(0) { $0 + $1.rewrites.count }
        let spots = migrations.reduce(0) { $0 + $1.spots.count }
        let verb = dryRun ? "would change" : "changed"
        return "Migrated \(migrations.count) files (\(lines) lines) in \(String(format: "%.2f", seconds)) s "
            + "(\(String(format: "%.2f", cpuSeconds)) s of CPU): \(rate) lines/s, \(cpuRate) lines per CPU second; "
            + "\(verb) \(changed) files, \(rewrites) rewrites, \(spots) spots left.\n"
    }
}
