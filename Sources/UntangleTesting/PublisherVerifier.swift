import Foundation
import Untangle
import UntangleSync

/// A contract check for any publisher: point it at a factory of your publisher, say what the publisher promises,
/// and it runs every ``VerifierRule`` against fresh instances, reporting each rule by name with what it observed.
///
/// ```swift
/// let report = PublisherVerifier(options: VerifierOptions(length: .exactly(3))) {
///     [1, 2, 3].publisher
/// }.verify()
/// report.assertPassed { XCTFail($0) }
/// print(report)   // PASS subscription first and exactly once: ... one line per rule
/// ```
///
/// The rules are the ones every Combine publisher must keep, in the spirit of the Reactive Streams TCK:
/// subscription first and once; never more values than demanded (several request patterns, reentrant requests,
/// `.unlimited`, requests near `Int.max`); bounded recursion; completion once, nothing after it, and without
/// demand; cancel idempotent, prompt even while another thread is inside the subscriber, and stopping delivery;
/// no overlapping delivery and no lost demand when requests or values come from several threads (searched for in
/// rounds, for ``VerifierOptions/concurrencyBudget`` per rule, with a subscriber that dwells inside `receive`);
/// subscriber and subscription released after cancel and after completion. Reports list each distinct violation
/// once, with its count and first occurrences. The subscriber used is ``TestSubscriber``, so every rule also fails
/// on any contract violation it notices on the way.
///
/// A broken publisher cannot hang the verifier: each rule runs on its own thread under a watchdog
/// (``VerifierOptions/timeout``) and reports `timedOut` instead. The stuck thread is abandoned, so a verifier run
/// that reports a timeout may leave a thread blocked for the rest of the process. A publisher that traps (for
/// example an `Int` demand counter overflowing) stops the process: ``VerifierOptions/onRuleStart`` tells which rule
/// was running.
///
/// **Demand:** the verifier is the subscriber; each rule documents the demand pattern it uses.
/// **Thread safety:** ``verify(rules:)`` may be called from any thread; it blocks until every rule finished or timed
/// out. The factory runs on the verifier's threads, once per rule; the fixture's `drive` and `finish` too (see
/// ``VerifierFixture``).
public struct PublisherVerifier<P: Publisher> {
    typealias Probe = TestSubscriber<P.Output, P.Failure>

    /// What the publisher promises.
    public let options: VerifierOptions
    /// The name reports use (the publisher's type by default).
    public let name: String
    let makeFixture: () -> VerifierFixture<P>

    /// Creates a verifier for a cold publisher: `makePublisher` returns a fresh instance each time it is called.
    ///
    /// ```swift
    /// let verifier = PublisherVerifier(options: VerifierOptions(length: .exactly(1))) { Just(1) }
    /// ```
    public init(
        _ name: String? = nil, options: VerifierOptions = VerifierOptions(), publisher makePublisher: @escaping () -> P
    ) {
        self.options = options
        self.name = name ?? String(describing: P.self)
        makeFixture = { VerifierFixture(makePublisher()) }
    }

    /// Creates a verifier for a publisher that needs driving (a subject, or anything built on one): `makeFixture`
    /// returns a fresh publisher with its `drive` and `finish` closures each time it is called.
    ///
    /// ```swift
    /// let verifier = PublisherVerifier(options: VerifierOptions(temperature: .hot, concurrentDrive: true)) {
    ///     let subject = PassthroughSubject<Int, Never>()
    ///     return VerifierFixture(subject, drive: { subject.send($0) }, finish: { subject.send(completion: .finished) })
    /// }
    /// ```
    public init(
        _ name: String? = nil, options: VerifierOptions = VerifierOptions(),
        fixture makeFixture: @escaping () -> VerifierFixture<P>
    ) {
        self.options = options
        self.name = name ?? String(describing: P.self)
        self.makeFixture = makeFixture
    }

    /// Runs `rules` (all of them by default), one after the other, and reports each.
    public func verify(rules: [VerifierRule] = VerifierRule.allCases) -> VerificationReport {
        VerificationReport(subject: name, results: rules.map(run))
    }

    private func run(_ rule: VerifierRule) -> VerifierRuleResult {
        options.onRuleStart?("\(name): \(rule)")
        let record = RuleRun()
        let finished = Concurrently.watchdogUnchecked(timeout: options.timeout) {
            record.finish(self.check(rule, record))
        }
        return record.result(for: rule, timedOut: !finished, timeout: options.timeout)
    }

    private func check(_ rule: VerifierRule, _ run: RuleRun) -> RuleRun.Verdict {
        switch rule {
        case .subscriptionFirstAndOnce: return checkSubscriptionFirstAndOnce(run)
        case .demandStepwise: return checkDemandStepwise(run)
        case .demandReturnedFromReceive: return checkDemandReturnedFromReceive(run)
        case .requestFromInsideReceive: return checkRequestFromInsideReceive(run)
        case .unlimitedDemand: return checkUnlimited(run, requests: [.unlimited])
        case .largeDemand:
            return checkUnlimited(run, requests: [.max(Int.max - 1), .max(Int.max - 1), .max(Int.max), .max(1)])
        case .completionOnce: return checkCompletionOnce(run)
        case .completionWithoutDemand: return checkCompletionWithoutDemand(run)
        case .cancelIdempotent: return checkCancelIdempotent(run)
        case .cancelStopsDelivery: return checkCancelStopsDelivery(run)
        case .cancelRacingDelivery: return checkCancelRacingDelivery(run)
        case .cancelWhileInsideSubscriber: return checkCancelWhileInsideSubscriber(run)
        case .concurrentRequests: return checkConcurrentRequests(run)
        case .concurrentDrive: return checkConcurrentDrive(run)
        case .releaseAfterCancel: return checkRelease(run, afterCompletion: false)
        case .releaseAfterCompletion: return checkRelease(run, afterCompletion: true)
        }
    }

    // MARK: Shared steps

    var isHot: Bool { options.temperature == .hot }

    /// The values a cold publisher guarantees.
    var available: Int { options.length.minimum }

    /// Whether the publisher promises a completion the verifier can obtain.
    func completes(_ fixture: VerifierFixture<P>) -> Bool {
        isHot ? fixture.finish != nil : options.length.completes
    }

    /// How long a rule waits for a signal it expects: half the rule's watchdog, so the wait reports first.
    var waitTimeout: TimeInterval { options.timeout / 2 }

    /// Subscribes and waits for `receive(subscription:)`.
    func subscribe(_ fixture: VerifierFixture<P>, _ probe: Probe, _ run: RuleRun) -> Bool {
        fixture.publisher.subscribe(probe)
        if probe.waitUntil(timeout: waitTimeout, { probe.subscription != nil }) { return true }
        run.problem("no receive(subscription:) within \(waitTimeout) s of subscribe(_:)")
        return false
    }

    /// Gets values flowing until `condition` holds: waits for a cold publisher, calls `drive` for a hot one.
    ///
    /// Gives up after the wait timeout, or, with `stall`, as soon as no value arrived for `stall` seconds (for
    /// checks that know how many values must come: a lost unit of demand then costs `stall`, not the whole wait).
    func produce(
        _ fixture: VerifierFixture<P>, _ probe: Probe, _ run: RuleRun, thread: Int = 0, stall: TimeInterval? = nil,
        until condition: () -> Bool
    ) -> Bool {
        let deadline = Date(timeIntervalSinceNow: waitTimeout)
        var lastCount = probe.valueCount
        var lastProgress = Date()
        /// Whether to stop waiting: past the deadline, or (with `stall`) no new value for `stall` seconds.
        func givesUp() -> Bool {
            let now = Date()
            if now > deadline { return true }
            guard let stall else { return false }
            let count = probe.valueCount
            if count != lastCount {
                lastCount = count
                lastProgress = now
                return false
            }
            return now.timeIntervalSince(lastProgress) > stall
        }
        guard isHot else {
            guard stall != nil else { return probe.waitUntil(timeout: waitTimeout, condition) }
            while !probe.waitUntil(timeout: 0.01, condition) {
                if probe.isCompleted || givesUp() { return condition() }
            }
            return true
        }
        guard let drive = fixture.drive else {
            run.problem("a hot publisher needs a VerifierFixture with a drive closure")
            return false
        }
        while !condition() {
            if probe.isCompleted || givesUp() { return condition() }
            let before = probe.valueCount
            drive(thread)
            // A synchronous publisher has delivered by now; give an asynchronous one a moment before driving again.
            if probe.valueCount == before {
                _ = probe.waitUntil(timeout: 0.01) { probe.valueCount > before || condition() }
            }
        }
        return true
    }

    /// Turns the probe's contract violations into problems, grouped by kind.
    func reportViolations(_ probe: Probe, _ run: RuleRun) {
        for violation in probe.violationRecords {
            run.problem(kind: violation.kind, violation.message)
        }
    }

    /// `subscription, 3 values, finished`.
    func summary(_ probe: Probe) -> String {
        let records = probe.records
        var parts: [String] = []
        var values = 0
        func flush() {
            if values > 0 { parts.append(values == 1 ? "1 value" : "\(values) values") }
            values = 0
        }
        for record in records {
            if record.event.value != nil {
                values += 1
            } else {
                flush()
                parts.append(record.event.description)
            }
        }
        flush()
        return parts.isEmpty ? "nothing" : parts.joined(separator: ", ")
    }
}
