// Test code, which the default-on rules about deliberate blocking, discarded cancellables and callouts under a lock
// skip: recognised by a folder named like tests, or by an import of a test framework.

import UntangleLint
import XCTest

/// The findings of `rule` alone in `source` linted as the file at `path`, as "line:column rule-id" strings.
func findings(_ rule: RuleDescription, in source: String, path: String) -> [String] {
    Linter.lint(source: source, path: path, rules: RuleSet(rules: [rule])).map {
        "\($0.line):\($0.column) \($0.ruleID)"
    }
}

final class TestCodeDetectionTests: XCTestCase {
    func testTestFoldersAndTestImportsAreTestCode() {
        let plain = "import Foundation\nlet x = 1\n"
        XCTAssertTrue(FileContext(path: "Tests/AppTests/LoaderTests.swift", source: plain).isTestCode)
        XCTAssertTrue(FileContext(path: "UnitTests/Geolocation/ServiceTests.swift", source: plain).isTestCode)
        XCTAssertTrue(FileContext(path: "Sources/AllTestz/Mock.swift", source: "import RxTest\n").isTestCode)
        XCTAssertTrue(FileContext(path: "Helpers/Spy.swift", source: "@testable import App\n").isTestCode)
        XCTAssertTrue(
            FileContext(path: "Helpers/Spy.swift", source: "#if canImport(XCTest)\nimport XCTest\n#endif\n").isTestCode)
    }

    func testAppAndLibraryCodeIsNotTestCode() {
        let plain = "import Foundation\nimport Combine\nlet x = 1\n"
        XCTAssertFalse(FileContext(path: "Sources/App/Loader.swift", source: plain).isTestCode)
        // A file named like a test in a folder that is not one, and a folder that only contains the word.
        XCTAssertFalse(FileContext(path: "Sources/TestsSupportless/Loader.swift", source: plain).isTestCode)
        XCTAssertFalse(FileContext(path: "App/LoaderTests.swift", source: plain).isTestCode)
    }
}
