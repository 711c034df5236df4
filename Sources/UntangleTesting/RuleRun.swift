import UntangleSync

/// What one rule of ``PublisherVerifier`` has observed so far: shared between the thread running the rule and the
/// verifier, which reads it when the rule times out.
final class RuleRun: Sendable {
    enum Verdict: Sendable {
        case checked
        case notApplicable(String)
    }

    private struct State {
        var notes: [String] = []
        var problems: [String] = []
        var verdict: Verdict?
    }

    private let state = LockedBox(State())

    /// Records an observation.
    func note(_ text: String) {
        state.withCriticalSection { $0.notes.append(text) }
    }

    /// Records a broken promise.
    func problem(_ text: String) {
        state.withCriticalSection { $0.problems.append(text) }
    }

    /// Records how the rule body ended.
    func finish(_ verdict: Verdict) {
        state.withCriticalSection { $0.verdict = verdict }
    }

    func result(for rule: VerifierRule, timedOut: Bool, timeout: Double) -> VerifierRuleResult {
        let state = state.withCriticalSection { $0 }
        let observed = (state.problems + state.notes).joined(separator: "; ")
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
