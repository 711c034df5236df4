// Helpers for the migration tests: migrate a snippet of an RxSwift file and compare it with the expected Untangle
// code; every comparison also checks that the result parses and that migrating it again changes nothing.

import SwiftParser
import UntangleLint
import XCTest

/// An RxSwift file: `import RxSwift` and a blank line, then `body`.
func rxFile(_ body: String) -> String {
    "import RxSwift\n\n" + body
}

/// The migrated file: Untangle's imports and a blank line, then `body`.
func untangledFile(_ body: String) -> String {
    "import Untangle\nimport UntangleExtras\n\n" + body
}

/// Migrates `before` (with `facts` from other files, if given) and checks the text, the spots' reasons, that the
/// result parses, and that a second run is a no-op.
@discardableResult
func assertMigrates(
    _ before: String, to after: String, spots: [String] = [], otherFiles: [String] = [],
    file: StaticString = #filePath, line: UInt = #line
) -> FileMigration {
    var facts = MigrationFacts()
    for other in otherFiles { facts.merge(Migrator.facts(source: other)) }
    let result = Migrator.migrate(source: before, path: "test.swift", facts: facts)
    XCTAssertEqual(result.migrated, after, file: file, line: line)
    XCTAssertEqual(result.spots.map(\.reason), spots, file: file, line: line)
    XCTAssertTrue(result.parses, "the migrated text parses", file: file, line: line)
    XCTAssertFalse(Parser.parse(source: result.migrated).hasError, file: file, line: line)
    let again = Migrator.migrate(source: result.migrated, path: "test.swift", facts: facts)
    XCTAssertEqual(again.migrated, result.migrated, "a second run changes nothing", file: file, line: line)
    return result
}
