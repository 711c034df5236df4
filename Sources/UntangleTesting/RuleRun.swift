import UntangleSync

/// What one rule of ``PublisherVerifier`` has observed so far: shared between the thread running the rule and the
/// verifier, which reads it when the rule times out.
///
/// Problems are grouped by kind: a rule that runs many rounds, or a publisher that breaks the same promise on every
/// value, reports each distinct violation once, with how often it happened and the first few occurrences.
final class RuleRun: Sendable {
    enum Verdict: Sendable {
        case checked
        case notApplicable(String)
    }

    /// How many occurrences of one kind of problem a report quotes.
    static let examplesPerProblem = 3

    private struct Problem {
        /// What groups occurrences: the kind of violation ("a value arrived beyond demand").
        let kind: String
        var count: Int
        /// The first few occurrences, in full.
        var examples: [String]
    }

    private struct State {
        var notes: [String] = []
        var problems: [Problem] = []
        var verdict: Verdict?
    }

    private let state = LockedBox(State())

    /// Records an observation (an identical one is kept once).
    func note(_ text: String) {
        state.withCriticalSection { state in
            if !state.notes.contains(text) { state.notes.append(text) }
        }
    }

    /// Records a broken promise; the text is both the kind and the example.
    func problem(_ text: String) {
        problem(kind: text, text)
    }

    /// Records one occurrence of a kind of broken promise.
    func problem(kind: String, _ example: String) {
        state.withCriticalSection { state in
            if let index = state.problems.firstIndex(where: { $0.kind == kind }) {
                state.problems[index].count += 1
                if state.problems[index].examples.count < Self.examplesPerProblem,
                    !state.problems[index].examples.contains(example)
                {
                    state.problems[index].examples.append(example)
                }
            } else {
                state.problems.append(Problem(kind: kind, count: 1, examples: [example]))
            }
        }
    }

    /// Whether any problem was recorded (the concurrency rules stop their rounds at the first).
    var hasProblems: Bool {
        state.withCriticalSection { !$0.problems.isEmpty }
    }

    /// Records how the rule body ended.
    func finish(_ verdict: Verdict) {
        state.withCriticalSection { $0.verdict = verdict }
    }

    /// One problem as a report shows it: the occurrence itself when it happened once; otherwise the kind, the count
    /// and the first occurrences.
    private static func describe(_ problem: Problem) -> String {
        if problem.count == 1, problem.examples.count == 1 { return problem.examples[0] }
        if problem.examples == [problem.kind] { return "\(problem.kind) (\(problem.count) times)" }
        let shown = problem.examples.count
        return "\(problem.kind): \(problem.count) times (first \(shown == 1 ? "one" : "\(shown)"): "
            + problem.examples.joined(separator: " | ") + ")"
    }

    func result(for rule: VerifierRule, timedOut: Bool, timeout: Double) -> VerifierRuleResult {
        let state = state.withCriticalSection { $0 }
        let observed = (state.problems.map(Self.describe) + state.notes).joined(separator: "; ")
        if timedOut {
            let summary =
                "timed out: the rule did not finish within \(timeout) s (a deadlock, or a promised signal "
                + "never came)"
            return VerifierRuleResult(
                rule: rule, outcome: .timedOut, observed: observed.isEmpty ? summary : "\(summary); \(observed)")
        }
        if case .notApplicable(let reason)? = state.verdict {
            return VerifierRuleResult(rule: rule, outcome: .notApplicable, observed: reason)
        }
        return VerifierRuleResult(
            rule: rule, outcome: state.problems.isEmpty ? .passed : .failed, observed: observed)
    }
}
