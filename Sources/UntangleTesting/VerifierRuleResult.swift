/// The outcome of one ``VerifierRule`` and what the verifier observed.
///
/// ```swift
/// for result in report.results where result.outcome == .failed { print(result) }
/// ```
///
/// **Thread safety:** a value type.
public struct VerifierRuleResult: Sendable, Equatable, CustomStringConvertible {
    /// How a rule ended.
    ///
    /// **Thread safety:** a value type.
    public enum Outcome: String, Sendable, Equatable {
        /// The publisher kept the rule.
        case passed
        /// The publisher broke the rule; ``VerifierRuleResult/observed`` says how.
        case failed
        /// The rule did not finish within ``VerifierOptions/timeout``: a deadlock, or a promise not kept.
        case timedOut
        /// The rule does not apply to what the publisher promises (for example completion rules on an endless one).
        case notApplicable
    }

    /// The rule.
    public var rule: VerifierRule
    /// How it ended.
    public var outcome: Outcome
    /// What the verifier saw: the problems first for a failure, then the observations.
    public var observed: String

    /// Creates a result.
    public init(rule: VerifierRule, outcome: Outcome, observed: String) {
        self.rule = rule
        self.outcome = outcome
        self.observed = observed
    }

    /// `PASS`, `FAIL`, `TIMEOUT` or `n/a`, the rule's name, and the observations.
    public var description: String {
        let tag: String
        switch outcome {
        case .passed: tag = "PASS"
        case .failed: tag = "FAIL"
        case .timedOut: tag = "TIMEOUT"
        case .notApplicable: tag = "n/a"
        }
        return "\(tag) \(rule): \(observed)"
    }
}
