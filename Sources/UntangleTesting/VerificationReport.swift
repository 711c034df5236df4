/// The result of ``PublisherVerifier/verify(rules:)``: one ``VerifierRuleResult`` per rule.
///
/// ```swift
/// let report = PublisherVerifier(options: VerifierOptions(length: .exactly(3))) { [1, 2, 3].publisher }.verify()
/// report.assertPassed { XCTFail($0) }
/// ```
///
/// **Thread safety:** a value type.
public struct VerificationReport: Sendable, Equatable, CustomStringConvertible {
    /// What the report is about (the publisher's type unless a name was given).
    public var subject: String
    /// One result per rule, in the order the rules ran.
    public var results: [VerifierRuleResult]

    /// Creates a report.
    public init(subject: String, results: [VerifierRuleResult]) {
        self.subject = subject
        self.results = results
    }

    /// Whether no rule failed or timed out.
    public var passed: Bool {
        failures.isEmpty
    }

    /// The rules that failed or timed out.
    public var failures: [VerifierRuleResult] {
        results.filter { $0.outcome == .failed || $0.outcome == .timedOut }
    }

    /// The result for `rule`, if it ran.
    public func result(for rule: VerifierRule) -> VerifierRuleResult? {
        results.first { $0.rule == rule }
    }

    /// The subject, then one line per rule.
    public var description: String {
        (["PublisherVerifier: \(subject)"] + results.map { "  \($0)" }).joined(separator: "\n")
    }

    /// Calls `report` with the failing rules (and the whole report) if any rule failed or timed out.
    ///
    /// ```swift
    /// report.assertPassed { XCTFail($0) }
    /// ```
    public func assertPassed(report: (String) -> Void) {
        guard !passed else { return }
        report(
            "\(subject) broke \(failures.count) rule(s):\n"
                + failures.map { "  \($0)" }.joined(separator: "\n") + "\n" + description)
    }
}
