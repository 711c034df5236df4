/// Formats the difference between two event histories for a failure message.
enum HistoryDiff {
    static func firstDifference<Element: Equatable>(_ expected: [Element], _ actual: [Element]) -> Int {
        let common = Swift.min(expected.count, actual.count)
        return (0..<common).first { expected[$0] != actual[$0] } ?? common
    }

    static func describe(expected: [String], actual: [String], firstDifference index: Int) -> String {
        var lines = ["event histories differ at index \(index):"]
        let expectedItem = index < expected.count ? expected[index] : "(nothing)"
        let actualItem = index < actual.count ? actual[index] : "(nothing)"
        lines.append("  at [\(index)]: expected \(expectedItem), got \(actualItem)")
        lines.append("  expected: [\(expected.joined(separator: ", "))]")
        lines.append("  actual:   [\(actual.joined(separator: ", "))]")
        return lines.joined(separator: "\n")
    }
}
