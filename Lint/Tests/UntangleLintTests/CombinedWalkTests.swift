// The combined walk (one walk of a file for every rule) against each rule walking the file alone: the same findings,
// so a rule that forgets to register a node kind it visits shows here.

import Foundation
import UntangleLint
import XCTest

final class CombinedWalkTests: XCTestCase {
    /// Every rule, the ones off by default included.
    private let everyRule = RuleSet(rules: Rules.all)

    private func swiftFiles(under folder: String) -> [String] {
        let enumerator = FileManager.default.enumerator(atPath: folder)
        var files: [String] = []
        while let relative = enumerator?.nextObject() as? String {
            if relative.hasSuffix(".swift") { files.append(folder + "/" + relative) }
        }
        return files.sorted()
    }

    func testCombinedWalkFindsWhatEachRuleFindsWalkingAlone() throws {
        var total = 0
        // Small folders: in a debug build the linter is slow, and the four real trees were compared in release.
        let folders = ["Examples/Pitfalls", "Lint/Sources/UntangleLint"]
        for file in folders.flatMap({ swiftFiles(under: repositoryRoot + "/" + $0) }) {
            let source = try String(contentsOfFile: file, encoding: .utf8)
            let combined = Linter.lint(source: source, path: file, rules: everyRule)
            let separate = Linter.lintSeparately(source: source, path: file, rules: everyRule)
            XCTAssertEqual(combined, separate, file)
            total += combined.count
        }
        // Examples/Pitfalls alone has 17 findings: the comparison is not between two empty lists.
        XCTAssertGreaterThanOrEqual(total, PitfallsTests.expected.count)
    }

    // The declarations every rule reads come from one walk: semaphores, concurrent queues and @Published properties
    // declared after their use, and a @Published inside another declaration's closure (not a property of the type).
    func testSharedDeclarationsSeeDeclarationsAfterTheirUseAndOnlyTopLevelPublished() {
        let source = """
            final class Model {
                func run() {
                    DispatchQueue.global().async { self.semaphore.wait() }
                    values.receive(on: queue).sink { _ in }.store(in: &cancellables)
                    other.assign(to: \\.name, on: self).store(in: &cancellables)
                    other.assign(to: \\.inner, on: self).store(in: &cancellables)
                }
                let semaphore = DispatchSemaphore(value: 0)
                let queue = DispatchQueue(label: "q", attributes: .concurrent)
                @Published var name = ""
                var holder: Any = { @Published var inner = 0; return 0 }()
            }
            """
        let combined = Linter.lint(source: source, path: "test.swift", rules: everyRule)
        XCTAssertEqual(combined, Linter.lintSeparately(source: source, path: "test.swift", rules: everyRule))
        XCTAssertEqual(
            combined.map { "\($0.line):\($0.column) \($0.ruleID) \($0.edits.isEmpty ? "" : "fix")" },
            [
                "3:55 blocking-wait-in-pool ",
                "4:16 receive-on-concurrent-queue ",
                "5:15 assign-on-self fix",
                // Off by default: a type with @Published state assigns into itself from a chain nothing brings to
                // the main thread.
                "5:15 ui-update-unproven-main ",
                "6:15 assign-on-self ",
                "6:15 ui-update-unproven-main ",
            ])
    }
}
