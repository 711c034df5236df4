// The command line: in-place rewrite and exit statuses (0 all rewritten, 1 spots left, 2 bad usage), --dry-run's
// unified diff, --report json, the summary line with the speed, a second run as a no-op, and markers left by an
// earlier run still counted.

import Foundation
import SwiftParser
import UntangleLint
import XCTest

final class MigrateCommandTests: XCTestCase {
    var folder: String!

    override func setUpWithError() throws {
        folder = NSTemporaryDirectory() + "untangle-migrate-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(atPath: folder)
    }

    func write(_ name: String, _ text: String) throws -> String {
        let path = folder + "/" + name
        try FileManager.default.createDirectory(
            atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    func read(_ path: String) throws -> String {
        try String(contentsOfFile: path, encoding: .utf8)
    }

    let clean = "import RxSwift\n\nlet bag = DisposeBag()\nlet x = o.retry(3)\n"
    let withSpot =
        "import RxSwift\n\nfunc f() {\n    button.rx.tap.subscribe(onNext: { print(\"tap\") }).disposed(by: bag)\n}\n"

    func testRewritesInPlaceAndExitsZeroWhenEverythingWasRewritten() throws {
        let path = try write("a.swift", clean)
        let outcome = MigrateCommand.run(arguments: ["--quiet", path])
        XCTAssertEqual(outcome.status, 0)
        XCTAssertEqual(outcome.output, "")
        XCTAssertEqual(
            try read(path), "import Untangle\nimport UntangleExtras\n\nlet bag = CancelBag()\nlet x = o.retry(2)\n")
    }

    func testASecondRunChangesNothing() throws {
        let path = try write("a.swift", clean)
        XCTAssertEqual(MigrateCommand.run(arguments: ["--quiet", path]).status, 0)
        let once = try read(path)
        let second = MigrateCommand.run(arguments: ["--quiet", path])
        XCTAssertEqual(second.status, 0)
        XCTAssertEqual(try read(path), once, "retry(2) must not become retry(1)")
        XCTAssertEqual(MigrateCommand.run(arguments: ["--quiet", "--dry-run", path]).output, "")
    }

    func testSpotsLeftAreMarkedInTheFileListedAndExitOne() throws {
        let path = try write("b.swift", withSpot)
        let outcome = MigrateCommand.run(arguments: ["--quiet", path])
        XCTAssertEqual(outcome.status, 1)
        let text = try read(path)
        XCTAssertTrue(text.contains("    // untangle-migrate: RxCocoa's button.rx.tap: no Untangle counterpart"), text)
        XCTAssertTrue(outcome.output.hasPrefix("\(path):4:5: warning: untangle-migrate: RxCocoa's button.rx.tap"))
        XCTAssertFalse(Parser.parse(source: text).hasError)
        // A second run changes nothing and still reports the marker it finds.
        let again = MigrateCommand.run(arguments: ["--quiet", path])
        XCTAssertEqual(again.status, 1)
        XCTAssertEqual(try read(path), text)
        XCTAssertEqual(again.files.first?.spots.count, 1)
    }

    func testDryRunPrintsAUnifiedDiffAndWritesNothing() throws {
        let path = try write("a.swift", clean)
        let outcome = MigrateCommand.run(arguments: ["--quiet", "--dry-run", path])
        XCTAssertEqual(try read(path), clean)
        XCTAssertEqual(
            outcome.output,
            """
            --- \(path)
            +++ \(path)
            @@ -1,5 +1,6 @@
            -import RxSwift
            +import Untangle
            +import UntangleExtras
             
            -let bag = DisposeBag()
            -let x = o.retry(3)
            +let bag = CancelBag()
            +let x = o.retry(2)
             

            """)
    }

    func testJSONReportListsRewritesSpotsAndConstructs() throws {
        let a = try write("a.swift", clean)
        let b = try write("sub/b.swift", withSpot)
        let outcome = MigrateCommand.run(arguments: ["--quiet", "--report", "json", folder])
        XCTAssertEqual(outcome.status, 1)
        let report = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(outcome.output.utf8)) as? [String: Any])
        XCTAssertEqual(report["files"] as? Int, 2)
        XCTAssertEqual(report["lines"] as? Int, 9)
        XCTAssertNotNil(report["linesPerSecond"] as? Int)
        let rewrites = try XCTUnwrap(report["rewrites"] as? [[String: Any]])
        XCTAssertTrue(
            rewrites.contains { $0["rule"] as? String == "operators" && $0["after"] as? String == "o.retry(2)" })
        let spots = try XCTUnwrap(report["spots"] as? [[String: Any]])
        XCTAssertEqual(spots.count, 1)
        XCTAssertEqual(spots[0]["path"] as? String, b)
        XCTAssertEqual(spots[0]["line"] as? Int, 4)
        let perFile = try XCTUnwrap(report["perFile"] as? [[String: Any]])
        let first = try XCTUnwrap(perFile.first { $0["path"] as? String == a })
        XCTAssertEqual(first["parses"] as? Bool, true)
        XCTAssertEqual(first["constructsBefore"] as? [String: Int], ["bags": 1])
        XCTAssertEqual(first["constructsAfter"] as? [String: Int], [:])
    }

    func testSummaryLineGivesTheSpeed() throws {
        let path = try write("a.swift", clean)
        let outcome = MigrateCommand.run(arguments: ["--dry-run", path])
        XCTAssertTrue(outcome.messages.hasPrefix("Migrated 1 files (4 lines) in "), outcome.messages)
        XCTAssertTrue(outcome.messages.contains(" s of CPU): "), outcome.messages)
        XCTAssertTrue(outcome.messages.contains(" lines per CPU second; would change 1 files, "), outcome.messages)
    }

    func testBadUsageExitsTwo() throws {
        XCTAssertEqual(MigrateCommand.run(arguments: []).status, 2)
        XCTAssertEqual(MigrateCommand.run(arguments: ["--bogus", folder]).status, 2)
        XCTAssertEqual(MigrateCommand.run(arguments: ["--report", "xml", folder]).status, 2)
        let missing = MigrateCommand.run(arguments: [folder + "/missing.swift"])
        XCTAssertEqual(missing.status, 2)
        XCTAssertTrue(missing.messages.contains("cannot read"))
    }

    func testHelpDocumentsDryRunAndTheJSONReport() {
        let outcome = MigrateCommand.run(arguments: ["--help"])
        XCTAssertEqual(outcome.status, 0)
        XCTAssertTrue(outcome.output.contains("--dry-run"))
        XCTAssertTrue(outcome.output.contains("--report json"))
        XCTAssertTrue(outcome.output.contains("Exit status: 0"))
    }
}
