// Output formats: compiler-style text (Xcode and editors pick it up), JSON, SARIF 2.1.0 (code scanning), GitHub
// Actions workflow commands.

import Foundation

/// The `--reporter` choices.
package enum Reporter: String, CaseIterable, Sendable {
    case text, json, sarif, github

    /// The whole report for `findings`.
    package func render(_ findings: [Finding]) -> String {
        switch self {
        case .text:
            return findings.map {
                "\($0.path):\($0.line):\($0.column): \($0.severity.rawValue): \($0.message) [\($0.ruleID)]\n"
            }.joined()
        case .github:
            return findings.map {
                let level = $0.severity == .error ? "error" : "warning"
                return "::\(level) file=\($0.path),line=\($0.line),col=\($0.column),title=\($0.ruleID)::"
                    + Self.githubEscape($0.message) + "\n"
            }.joined()
        case .json:
            return Self.json(
                findings.map { finding -> [String: Any] in
                    [
                        "path": finding.path, "line": finding.line, "column": finding.column, "rule": finding.ruleID,
                        "severity": finding.severity.rawValue, "message": finding.message,
                    ]
                }) + "\n"
        case .sarif:
            return Self.json(Self.sarif(findings)) + "\n"
        }
    }

    private static func githubEscape(_ text: String) -> String {
        text.replacingOccurrences(of: "%", with: "%25").replacingOccurrences(of: "\r", with: "%0D")
            .replacingOccurrences(of: "\n", with: "%0A")
    }

    private static func json(_ object: Any) -> String {
        let data =
            (try? JSONSerialization.data(withJSONObject: object, options: [.prettyPrinted, .sortedKeys])) ?? Data()
        return String(decoding: data, as: UTF8.self)
    }

    /// A SARIF 2.1.0 log: one run, the tool's rules, one result per finding.
    static func sarif(_ findings: [Finding]) -> [String: Any] {
        let rules = Rules.all.map { rule -> [String: Any] in
            [
                "id": rule.id,
                "shortDescription": ["text": rule.message],
                "defaultConfiguration": ["level": rule.severity.rawValue, "enabled": rule.enabledByDefault],
            ]
        }
        let results = findings.map { finding -> [String: Any] in
            [
                "ruleId": finding.ruleID,
                "ruleIndex": Rules.all.firstIndex { $0.id == finding.ruleID } ?? 0,
                "level": finding.severity.rawValue,
                "message": ["text": finding.message],
                "locations": [
                    [
                        "physicalLocation": [
                            "artifactLocation": ["uri": finding.path],
                            "region": ["startLine": finding.line, "startColumn": finding.column],
                        ]
                    ]
                ],
            ]
        }
        return [
            "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
            "version": "2.1.0",
            "runs": [
                [
                    "tool": [
                        "driver": [
                            "name": "untangle-lint",
                            "rules": rules,
                        ]
                    ],
                    "results": results,
                ]
            ],
        ]
    }
}
