// Helpers for the rule tests: lint a snippet with one rule, and describe findings as "line:column rule-id".

import UntangleLint
import XCTest

/// The findings of `rule` alone in `source`, as "line:column rule-id" strings.
func findings(_ rule: RuleDescription, in source: String, file: StaticString = #filePath, line: UInt = #line)
    -> [String]
{
    Linter.lint(source: source, path: "test.swift", rules: RuleSet(rules: [rule])).map {
        "\($0.line):\($0.column) \($0.ruleID)"
    }
}

/// Lints `source` with every default rule and returns the findings.
func allFindings(in source: String) -> [Finding] {
    Linter.lint(source: source, path: "test.swift")
}

/// The repository's root (this file is Lint/Tests/UntangleLintTests/LintTestSupport.swift).
let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent().path
