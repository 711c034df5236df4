// The baseline: a file of known findings (`--write-baseline FILE`), so a large codebase adopts the linter and sees only
// new findings (`--baseline FILE`). Findings match on path, rule and the trimmed source line, not the line number,
// so they survive edits elsewhere in the file; each baseline entry absorbs one finding.

import Foundation

/// A set of accepted findings.
package struct Baseline: Sendable {
    struct Key: Hashable, Codable {
        let path: String
        let rule: String
        let line: String
    }

    private var counts: [Key: Int] = [:]

    package init(findings: [Finding]) {
        for finding in findings { counts[Key(finding), default: 0] += 1 }
    }

    package init(contentsOf path: String) throws(LintError) {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw .usage("cannot read baseline '\(path)'")
        }
        guard let keys = try? JSONDecoder().decode([Key].self, from: data) else {
            throw .usage("invalid baseline '\(path)': expected the JSON written by --write-baseline")
        }
        for key in keys { counts[key, default: 0] += 1 }
    }

    /// The baseline file's contents for `findings`: stable order, one entry per finding.
    package static func data(for findings: [Finding]) -> Data {
        let keys = findings.map(Key.init)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        return (try? encoder.encode(keys)) ?? Data("[]".utf8)
    }

    /// The findings not in the baseline.
    package func filter(_ findings: [Finding]) -> [Finding] {
        var remaining = counts
        return findings.filter { finding in
            let key = Key(finding)
            guard let count = remaining[key], count > 0 else { return true }
            remaining[key] = count - 1
            return false
        }
    }
}

extension Baseline.Key {
    init(_ finding: Finding) {
        self.init(path: finding.path, rule: finding.ruleID, line: finding.lineText)
    }
}
