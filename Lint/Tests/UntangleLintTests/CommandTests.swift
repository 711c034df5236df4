// The command line: reporters (text, JSON, SARIF's required fields, GitHub), configuration, inline disables, the
// baseline, exit statuses, unreadable paths, and --fix (fixed output parses and no longer triggers).

import Foundation
import SwiftParser
import UntangleLint
import XCTest

final class CommandTests: XCTestCase {
    var folder: String!

    override func setUpWithError() throws {
        folder = NSTemporaryDirectory() + "untangle-lint-\(UUID().uuidString)"
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

    let mainSync = "func f() {\n    DispatchQueue.main.sync { g() }\n}\n"
    let discarded = "func f() {\n    _ = p.sink { print($0) }\n}\n"

    func testTextReporterIsCompilerStyleAndErrorsExitOne() throws {
        let path = try write("a.swift", mainSync)
        let outcome = LintCommand.run(arguments: ["--quiet", path])
        XCTAssertEqual(outcome.output, "\(path):2:24: error: \(MainQueueSync.description.message) [main-queue-sync]\n")
        XCTAssertEqual(outcome.status, 1)
    }

    func testWarningsOnlyExitZeroAndCleanExitsZero() throws {
        let path = try write("a.swift", discarded)
        XCTAssertEqual(LintCommand.run(arguments: ["--quiet", path]).status, 0)
        let clean = try write("b.swift", "let x = 1\n")
        let outcome = LintCommand.run(arguments: ["--quiet", clean])
        XCTAssertEqual(outcome.output, "")
        XCTAssertEqual(outcome.status, 0)
    }

    func testBadUsageAndUnreadablePathsExitTwo() {
        XCTAssertEqual(LintCommand.run(arguments: ["--reporter", "xml"]).status, 2)
        XCTAssertEqual(LintCommand.run(arguments: ["--bogus"]).status, 2)
        let missing = LintCommand.run(arguments: [folder + "/missing.swift"])
        XCTAssertEqual(missing.status, 2)
        XCTAssertTrue(missing.messages.contains("cannot read"))
        XCTAssertEqual(missing.output, "")
    }

    func testJSONReporter() throws {
        let path = try write("a.swift", mainSync)
        let outcome = LintCommand.run(arguments: ["--quiet", "--reporter", "json", path])
        let array = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(outcome.output.utf8)) as? [[String: Any]])
        XCTAssertEqual(array.count, 1)
        XCTAssertEqual(array[0]["rule"] as? String, "main-queue-sync")
        XCTAssertEqual(array[0]["line"] as? Int, 2)
        XCTAssertEqual(array[0]["severity"] as? String, "error")
    }

    /// The SARIF 2.1.0 schema's required properties: log {version, runs}, run {tool}, tool {driver}, driver {name},
    /// result {message}, message {text}, rule descriptor {id}; levels from the schema's enum.
    func testSARIFReporterHasTheSchemasRequiredFields() throws {
        let path = try write("a.swift", mainSync + mainSync.replacingOccurrences(of: "func f", with: "func g"))
        let outcome = LintCommand.run(arguments: ["--quiet", "--reporter", "sarif", path])
        let log = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(outcome.output.utf8)) as? [String: Any])
        XCTAssertEqual(log["version"] as? String, "2.1.0")
        let runs = try XCTUnwrap(log["runs"] as? [[String: Any]])
        XCTAssertEqual(runs.count, 1)
        let driver = try XCTUnwrap((runs[0]["tool"] as? [String: Any])?["driver"] as? [String: Any])
        XCTAssertEqual(driver["name"] as? String, "untangle-lint")
        let rules = try XCTUnwrap(driver["rules"] as? [[String: Any]])
        XCTAssertEqual(rules.compactMap { $0["id"] as? String }, Rules.all.map(\.id))
        let results = try XCTUnwrap(runs[0]["results"] as? [[String: Any]])
        XCTAssertEqual(results.count, 2)
        for result in results {
            XCTAssertNotNil((result["message"] as? [String: Any])?["text"] as? String)
            XCTAssertTrue(["none", "note", "warning", "error"].contains(result["level"] as? String ?? ""))
            let index = try XCTUnwrap(result["ruleIndex"] as? Int)
            XCTAssertEqual(rules[index]["id"] as? String, result["ruleId"] as? String)
            let location = try XCTUnwrap((result["locations"] as? [[String: Any]])?.first?["physicalLocation"])
            let region = try XCTUnwrap((location as? [String: Any])?["region"] as? [String: Any])
            XCTAssertGreaterThanOrEqual(region["startLine"] as? Int ?? 0, 1)
        }
    }

    func testGitHubReporter() throws {
        let path = try write("a.swift", mainSync)
        let outcome = LintCommand.run(arguments: ["--quiet", "--reporter", "github", path])
        XCTAssertEqual(
            outcome.output,
            "::error file=\(path),line=2,col=24,title=main-queue-sync::\(MainQueueSync.description.message)\n")
    }

    func testInlineDisableNextThisAndFile() throws {
        let source = """
            func f() {
                // untangle:disable:next main-queue-sync -- called only from a background queue, a reason that
                // goes on over a second comment line
                DispatchQueue.main.sync { g() }
                DispatchQueue.main.sync { g() }  // untangle:disable:this -- same
                // untangle:disable:next discarded-cancellable -- another rule: does not apply
                DispatchQueue.main.sync { g() }
            }
            """
        XCTAssertEqual(allFindings(in: source).map(\.line), [7])
        XCTAssertEqual(allFindings(in: "// untangle:disable-file main-queue-sync -- reason\n" + mainSync), [])
    }

    func testConfigurationDisablesRulesChangesSeveritiesAndExcludesPaths() throws {
        _ = try write("Sources/a.swift", mainSync)
        _ = try write("Sources/b.swift", discarded)
        _ = try write("Generated/c.swift", mainSync)
        let config = try write(
            ".untangle-lint.json",
            """
            {"disabled_rules": ["main-queue-sync"], "enabled_rules": ["discarded-cancellable"],
             "severity": {"discarded-cancellable": "error"},
             "excluded": ["Generated"]}
            """)
        let outcome = LintCommand.run(arguments: ["--quiet", "--config", config, folder])
        XCTAssertEqual(outcome.findings.map(\.ruleID), ["discarded-cancellable"])
        XCTAssertEqual(outcome.findings.first?.severity, .error)
        XCTAssertEqual(outcome.status, 1)
    }

    func testInvalidConfigurationIsAClearErrorWithStatusTwo() throws {
        let path = try write("a.swift", mainSync)
        for (text, expected) in [
            ("{\"disabled_rules\": [\"no-such-rule\"]}", "unknown rule 'no-such-rule'"),
            ("{\"disable\": []}", "unknown key 'disable'"),
            ("{\"severity\": {\"main-queue-sync\": \"fatal\"}}", "must be \"warning\" or \"error\""),
            ("not json", "not valid JSON"),
        ] {
            let config = try write("config.json", text)
            let outcome = LintCommand.run(arguments: ["--config", config, path])
            XCTAssertEqual(outcome.status, 2, text)
            XCTAssertTrue(outcome.messages.contains(expected), outcome.messages)
            XCTAssertEqual(outcome.output, "")
        }
    }

    func testBaselineHidesKnownFindingsEvenAfterLinesMove() throws {
        let path = try write("a.swift", mainSync)
        let baseline = folder + "/baseline.json"
        let written = LintCommand.run(arguments: ["--quiet", "--write-baseline", baseline, path])
        XCTAssertEqual(written.status, 0)
        XCTAssertEqual(LintCommand.run(arguments: ["--quiet", "--baseline", baseline, path]).findings, [])
        // Lines shift, and a new finding appears: only the new one is reported.
        try ("// a new comment\n" + mainSync + "func h() {\n    DispatchQueue.main.sync { }\n}\n")
            .write(toFile: path, atomically: true, encoding: .utf8)
        let outcome = LintCommand.run(arguments: ["--quiet", "--baseline", baseline, path])
        XCTAssertEqual(outcome.findings.map(\.line), [6])
    }

    func testFixProducesCodeThatParsesAndNoLongerTriggers() throws {
        let source = """
            import Combine

            final class Model {
                @Published var results: [String] = []
                var title = ""
                private var cancellables = Set<AnyCancellable>()

                init(search: AnyPublisher<[String], Never>, titles: AnyPublisher<String, Never>) {
                    search.assign(to: \\.results, on: self).store(in: &cancellables)
                    titles
                        .sink { value in
                            self.title = value
                        }
                        .store(in: &cancellables)
                    titles.sink { self.title = $0 }.store(in: &cancellables)
                }

                func start() {
                    DispatchQueue.global().async {
                        self.titles.sink { print($0) }.store(in: &self.cancellables)
                    }
                }

                func stop() { cancellables.removeAll() }
            }
            """
        let path = try write("Model.swift", source)
        let outcome = LintCommand.run(arguments: ["--quiet", "--fix", path])
        let fixed = try String(contentsOfFile: path, encoding: .utf8)
        XCTAssertFalse(Parser.parse(source: fixed).hasError, fixed)
        XCTAssertTrue(fixed.contains("search.assign(to: &$results)"), fixed)
        XCTAssertTrue(
            fixed.contains(".sink { [weak self] value in\n                guard let self else { return }\n"), fixed)
        XCTAssertTrue(fixed.contains("private let cancellables = CancelBag()"), fixed)
        XCTAssertTrue(fixed.contains(".store(in: self.cancellables)"), fixed)
        XCTAssertTrue(fixed.contains("cancellables.cancel()"), fixed)
        // `$0` closures get no mechanical fix (adding `in` would break them): that finding stays.
        XCTAssertEqual(outcome.findings.map(\.ruleID), ["sink-retain-cycle"])
        XCTAssertEqual(outcome.findings.map(\.line), [16])
    }
}
