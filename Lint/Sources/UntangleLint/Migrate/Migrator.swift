// Migrating one file: parse, decide whether it is an RxSwift file, run the rule families in one walk, check that the
// result parses, and count the RxSwift constructs before and after (what the corpus measurement reports).

import SwiftParser
import SwiftSyntax

/// What migrating one file produced.
package struct FileMigration: Sendable {
    package var path: String
    package var original: String
    /// The rewritten text; equal to `original` when nothing changed.
    package var migrated: String
    package var rewrites: [MigrationRewrite] = []
    package var spots: [MigrationSpot] = []
    package var lines: Int
    /// Whether the file imports RxSwift, RxCocoa or RxRelay (only such files are rewritten).
    package var isRxFile: Bool
    /// Whether the rewritten text parses without errors (always true for a file left unchanged that parsed).
    package var parses: Bool
    /// The RxSwift-only constructs found before and after, by category (see ``RxConstructCounter``).
    package var constructsBefore: [String: Int] = [:]
    package var constructsAfter: [String: Int] = [:]

    package var changed: Bool { migrated != original }
}

/// Rewrites RxSwift source onto Untangle.
package enum Migrator {
    /// The rule families, in the order the walk offers them each node.
    static let families: [MigrationRule.Type] = [
        ImportRules.self, TypeRules.self, DisposalRules.self, SubjectRules.self, SubscribeRules.self,
        SchedulerRules.self, CreationRules.self, TraitRules.self, OperatorRules.self, SlotRules.self,
        LeftoverRules.self,
    ]

    /// The RxSwift modules whose import makes a file an RxSwift file.
    static let rxModules: Set<String> = ["RxSwift", "RxCocoa", "RxRelay"]

    /// Whether a parsed file imports RxSwift, RxCocoa or RxRelay (at the top level or inside `#if` blocks).
    static func isRxFile(_ tree: SourceFileSyntax) -> Bool {
        !ImportRules.importedModules(in: tree.statements).isDisjoint(with: rxModules)
    }

    /// The facts (what names hold) of one file's source, for ``migrate(source:path:facts:tree:fileFacts:countConstructs:)``.
    package static func facts(source: String) -> MigrationFacts {
        MigrationFacts(Parser.parse(source: source))
    }

    /// Migrates `source`. `facts` are the run's facts (every file's declarations); by default, the file's own.
    /// `tree` is `source` parsed and `fileFacts` its facts, if the caller has them; `countConstructs` counts the RxSwift constructs before and
    /// after (for the JSON report; it costs two more walks).
    package static func migrate(
        source: String, path: String, facts: MigrationFacts? = nil, tree parsed: SourceFileSyntax? = nil,
        fileFacts: MigrationFacts? = nil, countConstructs: Bool = true
    ) -> FileMigration {
        let tree = parsed ?? Parser.parse(source: source)
        let lines = source.utf8.reduce(0) { $0 + ($1 == UInt8(ascii: "\n") ? 1 : 0) }
        let before = countConstructs ? RxConstructCounter.count(tree) : [:]
        guard isRxFile(tree) else {
            // Not an RxSwift file (or one migrated already): unchanged; markers an earlier run left still count.
            return FileMigration(
                path: path, original: source, migrated: source, spots: markers(in: source, path: path),
                lines: lines, isRxFile: false, parses: !tree.hasError, constructsBefore: before,
                constructsAfter: before)
        }
        var knowledge = facts ?? MigrationFacts()
        knowledge.overlay(fileFacts ?? MigrationFacts(tree))
        let context = MigrationContext(path: path, tree: tree, facts: knowledge)
        let rewritten = MigrationRewriter(context: context, families: families).rewrite(tree)
        let migrated = rewritten.description
        let reparsed = Parser.parse(source: migrated)
        var result = FileMigration(
            path: path, original: source, migrated: migrated, rewrites: context.rewrites, spots: context.allSpots,
            lines: lines, isRxFile: true, parses: !reparsed.hasError, constructsBefore: before,
            constructsAfter: countConstructs ? RxConstructCounter.count(reparsed) : [:])
        if reparsed.hasError && !tree.hasError {
            // Never write what does not parse: the file stays as it was, and says so.
            result.migrated = source
            result.rewrites = []
            result.spots = [
                MigrationSpot(
                    path: path, line: 1, column: 1,
                    reason: "the rewritten file did not parse (a bug in untangle migrate): left unchanged")
            ]
            result.parses = true
            result.constructsAfter = before
        }
        return result
    }

    /// The `// untangle-migrate:` lines already in `source`, as spots.
    static func markers(in source: String, path: String) -> [MigrationSpot] {
        var spots: [MigrationSpot] = []
        for (index, line) in source.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            guard let range = line.range(of: "// \(migrationMarker)") else { continue }
            let reason = String(line[range.upperBound...]).trimmedBlanks()
            let column = line.distance(from: line.startIndex, to: range.lowerBound) + 1
            spots.append(MigrationSpot(path: path, line: index + 1, column: column, reason: reason))
        }
        return spots
    }
}
