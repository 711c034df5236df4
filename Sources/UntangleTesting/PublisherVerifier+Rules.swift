import Foundation
import Untangle
import UntangleSync

// The body of each VerifierRule. Every body makes a fresh fixture, subscribes a TestSubscriber (the probe), drives
// it, and records observations and problems in `run`. Bodies run on a watchdog thread: they may block on a broken
// publisher, and every wait they make has a timeout.
extension PublisherVerifier {
    func checkSubscriptionFirstAndOnce(_ run: RuleRun) -> RuleRun.Verdict {
        let fixture = makeFixture()
        let probe = Probe(initialDemand: .none)
        guard subscribe(fixture, probe, run) else { return .checked }
        // Let the publisher run to its end (or a few values) to see that no second subscription comes later.
        if isHot {
            probe.request(.unlimited)
            _ = produce(fixture, probe, run) { probe.valueCount >= 1 }
            fixture.finish?()
        } else if options.length.completes {
            probe.request(.unlimited)
        } else if available > 0 {
            probe.request(.max(available))
        }
        if completes(fixture), !probe.waitForCompletion(timeout: waitTimeout) {
            run.problem("no completion within \(waitTimeout) s although the publisher promises one")
        }
        let subscriptions = probe.events.filter { if case .subscription = $0 { return true } else { return false } }
        if let first = probe.events.first, case .subscription = first {
        } else {
            run.problem("the first signal was not receive(subscription:)")
        }
        run.note("received \(subscriptions.count) subscription(s): \(summary(probe))")
        reportViolations(probe, run)
        probe.cancel()
        return .checked
    }

    func checkDemandStepwise(_ run: RuleRun) -> RuleRun.Verdict {
        let fixture = makeFixture()
        let probe = Probe(initialDemand: .none)
        guard subscribe(fixture, probe, run) else { return .checked }
        if isHot { fixture.drive?(0) }
        var observations = ["no request: \(probe.valueCount) value(s)"]
        var total = 0
        for step in [1, 1, 2] {
            total += step
            probe.request(.max(step))
            let target = isHot ? total : Swift.min(total, available)
            guard produce(fixture, probe, run, until: { probe.valueCount >= target || probe.isCompleted }) else {
                run.problem("after requesting \(total) in total only \(probe.valueCount) value(s) arrived")
                break
            }
            // The demand is used up: a hot publisher driven again must not deliver.
            if isHot, probe.valueCount >= total { fixture.drive?(0) }
            observations.append("request(\(step)): \(probe.valueCount) value(s)")
        }
        if !isHot, options.length.completes {
            if available <= total {
                if !probe.waitForCompletion(timeout: waitTimeout) {
                    run.problem("no completion after the \(available) promised value(s)")
                }
            } else if probe.isCompleted {
                run.problem("completed after \(probe.valueCount) value(s); \(available) were promised")
            }
        }
        run.note(observations.joined(separator: ", "))
        reportViolations(probe, run)
        probe.cancel()
        return .checked
    }

    func checkDemandReturnedFromReceive(_ run: RuleRun) -> RuleRun.Verdict {
        let limit = isHot ? 20 : Swift.min(available, 1_000)
        let expectsCompletion = !isHot && options.length.completes && limit == available
        if limit == 0, !expectsCompletion {
            return .notApplicable("the publisher promises no values")
        }
        let fixture = makeFixture()
        let keepsDemandOpen = expectsCompletion && !options.completesWithoutExtraDemand
        let probe = Probe(initialDemand: limit > 0 || keepsDemandOpen ? .max(1) : .none) { probe, _ in
            if probe.valueCount < limit || keepsDemandOpen { return .max(1) }
            if !expectsCompletion { probe.cancel() }
            return .none
        }
        guard subscribe(fixture, probe, run) else { return .checked }
        if !produce(fixture, probe, run, until: { probe.valueCount >= limit || probe.isCompleted }) {
            run.problem("only \(probe.valueCount) of \(limit) value(s) arrived")
        }
        if expectsCompletion, !probe.waitForCompletion(timeout: waitTimeout) {
            run.problem("no completion after the \(available) promised value(s)")
        }
        if probe.valueCount < limit {
            run.problem("\(probe.valueCount) value(s) arrived, \(limit) expected (each receive(_:) returned .max(1))")
        }
        run.note("initial .max(1), then .max(1) returned from each receive(_:): \(summary(probe))")
        reportViolations(probe, run)
        probe.cancel()
        return .checked
    }

    func checkRequestFromInsideReceive(_ run: RuleRun) -> RuleRun.Verdict {
        let limit = isHot ? 100 : Swift.min(available, options.longStreamLength)
        if limit < 2 { return .notApplicable("needs a stream of at least 2 values (the publisher promises \(limit))") }
        let expectsCompletion = !isHot && options.length.completes && limit == available
        let keepsDemandOpen = expectsCompletion && !options.completesWithoutExtraDemand
        let maximumDepth = options.maximumDepth
        let stopped = LockedBox(false)
        let fixture = makeFixture()
        let probe = Probe(initialDemand: .max(1)) { probe, _ in
            // Past the allowed depth the probe stops requesting, so a recursive publisher unwinds instead of
            // overflowing the stack.
            if probe.maximumDepth > maximumDepth {
                stopped.withLock { $0 = true }
                probe.cancel()
                return .none
            }
            if probe.valueCount < limit || keepsDemandOpen {
                probe.request(.max(1))
            } else if !expectsCompletion {
                probe.cancel()
            }
            return .none
        }
        guard subscribe(fixture, probe, run) else { return .checked }
        _ = produce(fixture, probe, run) {
            probe.valueCount >= limit || probe.isCompleted || stopped.withLock { $0 }
        }
        let depth = probe.maximumDepth
        if depth > maximumDepth {
            run.problem(
                "receive(_:) was entered \(depth) deep on one thread: a request(_:) made inside receive(_:) delivered "
                    + "the next value recursively (allowed depth: \(maximumDepth)); a long stream would overflow the "
                    + "stack")
        } else {
            if probe.valueCount < limit {
                run.problem("only \(probe.valueCount) of \(limit) value(s) arrived")
            }
            if expectsCompletion, !probe.waitForCompletion(timeout: waitTimeout) {
                run.problem("no completion after the \(available) promised value(s)")
            }
        }
        run.note(
            "\(limit) values requested one at a time from inside receive(_:): \(summary(probe)); deepest nesting \(depth)"
        )
        reportViolations(probe, run)
        probe.cancel()
        return .checked
    }

    func checkUnlimited(_ run: RuleRun, requests: [Subscribers.Demand]) -> RuleRun.Verdict {
        let fixture = makeFixture()
        // An endless synchronous publisher delivers everything inside request(_:): the probe cancels at a cap.
        let exact = !isHot && options.length.completes
        let endless = !isHot && !exact
        let cap = isHot ? 20 : Swift.max(available, 1)
        let probe = Probe(initialDemand: .none) { probe, _ in
            if endless, probe.valueCount >= cap { probe.cancel() }
            return .none
        }
        guard subscribe(fixture, probe, run) else { return .checked }
        for demand in requests {
            probe.request(demand)
        }
        let target = isHot ? cap : available
        if !produce(fixture, probe, run, until: { probe.valueCount >= target || probe.isCompleted }) {
            run.problem("only \(probe.valueCount) of \(target) value(s) arrived")
        }
        if isHot, let finish = fixture.finish {
            finish()
        }
        if completes(fixture), !probe.waitForCompletion(timeout: waitTimeout) {
            run.problem("no completion (promised) after \(probe.valueCount) value(s)")
        }
        if exact, probe.valueCount != available {
            run.problem("\(probe.valueCount) value(s) arrived; exactly \(available) were promised")
        }
        run.note("requests \(requests.map(\.description).joined(separator: ", ")): \(summary(probe))")
        reportViolations(probe, run)
        probe.cancel()
        return .checked
    }

    func checkCompletionOnce(_ run: RuleRun) -> RuleRun.Verdict {
        let fixture = makeFixture()
        guard completes(fixture) else {
            return .notApplicable("the publisher does not promise to complete (length .atLeast, or no finish closure)")
        }
        let probe = Probe(initialDemand: .unlimited)
        guard subscribe(fixture, probe, run) else { return .checked }
        if isHot {
            _ = produce(fixture, probe, run) { probe.valueCount >= 2 }
            fixture.finish?()
        }
        guard probe.waitForCompletion(timeout: waitTimeout) else {
            run.problem("no completion within \(waitTimeout) s")
            return .checked
        }
        // Tempt the publisher: demand, driving and cancel after the completion must change nothing.
        let subscription = probe.subscription
        subscription?.request(.max(1))
        subscription?.request(.unlimited)
        if isHot {
            fixture.drive?(0)
            fixture.finish?()
        }
        subscription?.cancel()
        if isHot { fixture.drive?(0) }
        let completions = probe.events.filter { $0.completion != nil }.count
        if completions != 1 { run.problem("\(completions) completions") }
        run.note(
            "\(summary(probe)); then request(max(1)), request(unlimited), \(isHot ? "drive, finish, " : "")cancel()")
        reportViolations(probe, run)
        return .checked
    }

    func checkCompletionWithoutDemand(_ run: RuleRun) -> RuleRun.Verdict {
        let fixture = makeFixture()
        guard completes(fixture) else {
            return .notApplicable("the publisher does not promise to complete (length .atLeast, or no finish closure)")
        }
        let demand = isHot || available == 0 ? Subscribers.Demand.none : .max(available)
        let probe = Probe(initialDemand: demand)
        guard subscribe(fixture, probe, run) else { return .checked }
        if isHot { fixture.finish?() }
        // An operator that must pull the upstream's remaining elements gets one more unit of demand, which must
        // not produce a value. A hot publisher that adds one value of its own around the driven ones (`append`,
        // `prepend`) gets one unit after `finish`, for that value.
        let pulls = !options.completesWithoutExtraDemand
        if pulls {
            if !isHot { _ = probe.waitForValues(available, timeout: waitTimeout) }
            probe.request(.max(1))
        }
        if !probe.waitForCompletion(timeout: waitTimeout) {
            run.problem(
                "no completion within \(waitTimeout) s after exactly the \(isHot ? 0 : available) promised value(s) "
                    + (pulls
                        ? "and one more were requested"
                        : "were requested: the completion waits for demand it does not need"))
        }
        if probe.valueCount > available, !isHot {
            run.problem("\(probe.valueCount) values arrived; exactly \(available) were promised")
        }
        if isHot, probe.valueCount > (pulls ? 1 : 0) {
            run.problem("\(probe.valueCount) values arrived; \(pulls ? "one was" : "none were") requested")
        }
        run.note("demand \(demand)\(pulls ? " then max(1)" : ""): \(summary(probe))")
        reportViolations(probe, run)
        return .checked
    }

    func checkCancelIdempotent(_ run: RuleRun) -> RuleRun.Verdict {
        let fixture = makeFixture()
        let probe = Probe(initialDemand: .none)
        guard subscribe(fixture, probe, run) else { return .checked }
        if isHot || available > 0 {
            probe.request(.max(1))
            _ = produce(fixture, probe, run) { probe.valueCount >= 1 || probe.isCompleted }
        }
        let before = probe.events.count
        probe.cancel()
        probe.cancel()
        if !Concurrently.runUnchecked(
            threads: options.threads, timeout: waitTimeout,
            { _ in
                probe.cancel()
                probe.cancel()
            })
        {
            run.problem("cancel() called from \(options.threads) threads at once did not return (deadlock?)")
        }
        probe.subscription?.request(.max(1))
        if isHot { fixture.drive?(0) }
        // An asynchronous publisher may have started one delivery on its own thread just before the first cancel()
        // (cancel never waits for a delivery in progress): that one signal is allowed, as in the cancel-racing rule.
        // Anything more, or anything on this (the cancelling) thread, arrived after cancel().
        let after = Array(probe.records.dropFirst(before))
        let inFlight = after.count == 1 && after[0].thread != RecordedThread.current
        if inFlight {
            run.note("one signal was already in flight on another thread: \(after[0].event)")
        } else if !after.isEmpty {
            run.problem("after cancel(): \(after.map(\.event.description).joined(separator: ", "))")
        }
        run.note(
            "cancel() twice, then twice on each of \(options.threads) threads, then request(max(1)): "
                + "\(summary(probe))")
        reportViolations(probe, run)
        return .checked
    }

    func checkCancelStopsDelivery(_ run: RuleRun) -> RuleRun.Verdict {
        if !isHot, available < 3 {
            return .notApplicable("needs at least 3 values (the publisher promises \(available))")
        }
        let fixture = makeFixture()
        let cancelledAfter = LockedBox<Int?>(nil)
        let probe = Probe(initialDemand: isHot ? .unlimited : .max(Swift.min(available, 100))) { probe, _ in
            if probe.valueCount == 2 {
                probe.cancel()
                let count = probe.events.count
                cancelledAfter.withLock { $0 = count }
            }
            return .none
        }
        guard subscribe(fixture, probe, run) else { return .checked }
        _ = produce(fixture, probe, run) { cancelledAfter.withLock { $0 } != nil || probe.isCompleted }
        if isHot {
            for _ in 0..<3 { fixture.drive?(0) }
        }
        if let count = cancelledAfter.withLock({ $0 }) {
            let after = probe.events.dropFirst(count)
            if !after.isEmpty {
                run.problem(
                    "\(after.count) signal(s) arrived after cancel() returned inside receive(_:): "
                        + after.prefix(5).map(\.description).joined(separator: ", "))
            }
        } else {
            run.problem("the second value never arrived (\(summary(probe)))")
        }
        run.note("cancel() inside the second receive(_:): \(summary(probe))")
        reportViolations(probe, run)
        return .checked
    }

    func checkCancelRacingDelivery(_ run: RuleRun) -> RuleRun.Verdict {
        if !isHot, available < 20 {
            return .notApplicable("needs at least 20 values (the publisher promises \(available))")
        }
        let fixture = makeFixture()
        let probe = Probe(initialDemand: isHot ? .unlimited : .none)
        guard subscribe(fixture, probe, run) else { return .checked }
        let stop = LockedBox(false)
        let isHot = isHot
        let done = Concurrently.startUnchecked {
            // Keeps going a few times after the cancel, so a publisher that ignores cancel shows it.
            var extra = 3
            for _ in 0..<100_000 where extra > 0 {
                if stop.withLock({ $0 }) { extra -= 1 }
                if isHot { fixture.drive?(1) } else { probe.request(.max(1)) }
            }
        }
        if !probe.waitUntil(timeout: waitTimeout, { probe.valueCount >= 5 || probe.isCompleted }) {
            run.problem("fewer than 5 values arrived while another thread was requesting or driving")
        }
        probe.cancel()
        let atReturn = probe.events.count
        stop.withLock { $0 = true }
        if done.wait(timeout: .now() + waitTimeout) == .timedOut {
            run.problem("the delivering thread did not finish after cancel() (deadlock?)")
            return .checked
        }
        let late = probe.events.dropFirst(atReturn)
        if late.count > 1 {
            run.problem(
                "\(late.count) signals arrived after cancel() returned on another thread (at most the one already "
                    + "in flight may): " + late.prefix(5).map(\.description).joined(separator: ", "))
        }
        run.note("cancel() while another thread \(isHot ? "drove" : "requested") values: \(summary(probe))")
        reportViolations(probe, run)
        return .checked
    }

    func checkCancelWhileInsideSubscriber(_ run: RuleRun) -> RuleRun.Verdict {
        if !isHot, available < 1 { return .notApplicable("needs at least one value") }
        let fixture = makeFixture()
        let entered = DispatchSemaphore(value: 0)
        let gate = DispatchSemaphore(value: 0)
        let gateTimeout = options.timeout
        let probe = Probe(initialDemand: .none) { probe, _ in
            if probe.valueCount == 1 {
                entered.signal()
                _ = gate.wait(timeout: .now() + gateTimeout)
            }
            return .none
        }
        guard subscribe(fixture, probe, run) else { return .checked }
        let done = Concurrently.startUnchecked {
            probe.request(.max(1))
            _ = self.produce(fixture, probe, run, thread: 1) { probe.valueCount >= 1 }
        }
        guard entered.wait(timeout: .now() + waitTimeout) == .success else {
            gate.signal()
            run.problem("no value was delivered within \(waitTimeout) s")
            return .checked
        }
        let cancelReturned = Concurrently.watchdogUnchecked(timeout: options.cancelTimeout) { probe.cancel() }
        gate.signal()
        if !cancelReturned {
            run.problem(
                "cancel() did not return within \(options.cancelTimeout) s while another thread was inside "
                    + "receive(_:): cancel waits for the delivery in progress (it takes a lock the delivery holds); a "
                    + "subscriber that cancels while holding its own lock, which the delivering thread needs, "
                    + "deadlocks")
        }
        if done.wait(timeout: .now() + waitTimeout) == .timedOut {
            run.problem("the delivering thread did not return after the subscriber let it go (deadlock?)")
            return .checked
        }
        if isHot {
            for _ in 0..<3 { fixture.drive?(0) }
        }
        if probe.valueCount > 1 {
            run.problem("\(probe.valueCount - 1) value(s) arrived after cancel()")
        }
        run.note("cancel() from another thread while receive(_:) was blocked: \(summary(probe))")
        reportViolations(probe, run)
        return .checked
    }

    // The two concurrency rules look for races, which show in some runs only. Each runs rounds, every round on a
    // fresh instance with threads released together at a barrier, until a round breaks the contract or
    // `concurrencyBudget` is spent; and its subscriber sleeps for `dwellInsideReceive` inside every `receive(_:)`, so
    // a second delivery that a broken publisher lets in while the first is still running lands inside the subscriber
    // and is seen, however briefly the publisher itself races (sleeping, not spinning: the other threads get the
    // core even on a loaded machine).

    func checkConcurrentRequests(_ run: RuleRun) -> RuleRun.Verdict {
        if !isHot, available < 1 { return .notApplicable("needs at least one value") }
        let threads = options.threads
        let drives = isHot && options.concurrentDrive
        var delivered = 0
        var requested = 0
        var first: VerifierFixture<P>? = makeFixture()
        var round = 0
        let rounds = inRounds(run) {
            // Odd rounds dwell inside receive (overlapping deliveries show); even ones run flat out with ten times
            // the calls (a demand counter updated in two steps loses an update only when a thread is preempted or
            // overtaken between them: the more calls, the likelier).
            round += 1
            let dwells = round % 2 == 1
            let calls = dwells ? options.callsPerThread : options.callsPerThread * 10
            let total = threads * calls
            let fixture = first.take() ?? makeFixture()
            let probe = dwells ? dwellingProbe(initialDemand: .none) : Probe(initialDemand: .none)
            guard subscribe(fixture, probe, run) else { return false }
            defer { probe.cancel() }
            let returned = Concurrently.runUnchecked(threads: threads, timeout: waitTimeout) { thread in
                for _ in 0..<calls {
                    probe.request(.max(1))
                    if drives { fixture.drive?(thread) }
                }
            }
            if !returned {
                run.problem(
                    "request(_:) from \(threads) threads at once did not return within \(waitTimeout) s (deadlock?)")
                return false
            }
            // A publisher already caught (overlapping or excess deliveries) is not driven further.
            if probe.violationRecords.isEmpty {
                let expected = isHot ? total : Swift.min(total, available)
                if !produce(
                    fixture, probe, run, stall: Swift.min(waitTimeout, 1),
                    until: { probe.valueCount >= expected || probe.isCompleted })
                {
                    run.problem(
                        kind: "concurrent request(_:) calls lost demand",
                        "\(probe.valueCount) of the \(expected) requested value(s) arrived: concurrent request(_:) "
                            + "calls lost demand (an unprotected demand counter?)")
                } else if isHot, !probe.isCompleted {
                    // The demand is used up: one more drive must deliver nothing. A counter that lost a decrement
                    // (a request's write overwriting a delivery's) delivers here, beyond demand.
                    fixture.drive?(0)
                }
            }
            requested += total
            delivered += probe.valueCount
            reportViolations(probe, run)
            return true
        }
        run.note(
            "\(rounds) round(s) of request(max(1)) from \(threads) threads\(drives ? ", each driving too" : ""): "
                + "\(requested) requested, \(delivered) value(s) delivered in total")
        return .checked
    }

    func checkConcurrentDrive(_ run: RuleRun) -> RuleRun.Verdict {
        var first: VerifierFixture<P>? = makeFixture()
        guard isHot, options.concurrentDrive, first?.drive != nil else {
            return .notApplicable("only for hot publishers whose drive may run on several threads")
        }
        let threads = options.threads
        let calls = options.callsPerThread
        var delivered = 0
        var threadsSeen = Set<RecordedThread>()
        let rounds = inRounds(run) {
            let fixture = first.take() ?? makeFixture()
            let probe = dwellingProbe(initialDemand: .unlimited)
            guard subscribe(fixture, probe, run) else { return false }
            defer { probe.cancel() }
            if !Concurrently.runUnchecked(
                threads: threads, timeout: waitTimeout,
                { thread in
                    for _ in 0..<calls { fixture.drive?(thread) }
                })
            {
                run.problem(
                    "drive from \(threads) threads at once did not return within \(waitTimeout) s (deadlock?)")
                return false
            }
            if let finish = fixture.finish {
                finish()
                if !probe.waitForCompletion(timeout: waitTimeout) { run.problem("no completion after finish") }
            }
            delivered += probe.valueCount
            threadsSeen.formUnion(probe.threads)
            reportViolations(probe, run)
            return true
        }
        run.note(
            "\(rounds) round(s) of drive from \(threads) threads, \(calls) drives each: \(delivered) value(s) in total, delivered "
                + "on \(threadsSeen.count) thread(s)")
        return .checked
    }

    /// Runs `round` (which returns false to stop) until a problem is recorded or ``VerifierOptions/concurrencyBudget``
    /// is spent; at least once. Returns how many rounds ran.
    private func inRounds(_ run: RuleRun, _ round: () -> Bool) -> Int {
        let deadline = Date(timeIntervalSinceNow: options.concurrencyBudget)
        var rounds = 0
        repeat {
            rounds += 1
            guard round() else { break }
        } while !run.hasProblems && Date() < deadline
        return rounds
    }

    /// A subscriber that stays ``VerifierOptions/dwellInsideReceive`` inside each `receive(_:)`.
    private func dwellingProbe(initialDemand: Subscribers.Demand) -> Probe {
        let microseconds = UInt32(Swift.max(0, Swift.min(options.dwellInsideReceive, 1)) * 1_000_000)
        return Probe(initialDemand: initialDemand) { _, _ in
            if microseconds > 0 { usleep(microseconds) }
            return .none
        }
    }

    func checkRelease(_ run: RuleRun, afterCompletion: Bool) -> RuleRun.Verdict {
        let fixture = makeFixture()
        if afterCompletion, !completes(fixture) {
            return .notApplicable("the publisher does not promise to complete (length .atLeast, or no finish closure)")
        }
        weak var weakProbe: Probe?
        weak var weakSubscription: AnyObject?
        var subscriptionIsObject = false
        do {
            let probe = Probe(initialDemand: afterCompletion ? .unlimited : .none)
            weakProbe = probe
            guard subscribe(fixture, probe, run) else { return .checked }
            if let subscription = probe.subscription, type(of: subscription) is AnyClass {
                subscriptionIsObject = true
                weakSubscription = subscription as AnyObject
            }
            if afterCompletion {
                if isHot { fixture.finish?() }
                if !probe.waitForCompletion(timeout: waitTimeout) {
                    run.problem("no completion within \(waitTimeout) s")
                    return .checked
                }
            } else {
                if isHot || available > 0 {
                    probe.request(.max(1))
                    _ = produce(fixture, probe, run) { probe.valueCount >= 1 || probe.isCompleted }
                }
                probe.cancel()
            }
            run.note("\(summary(probe)); then \(afterCompletion ? "the subscriber let go" : "cancel()")")
            reportViolations(probe, run)
        }
        // A stateless shared subscription (like `Subscriptions.empty`) lives on by design: it is only checked when a
        // second subscriber gets a different object.
        if subscriptionIsObject, let shared = weakSubscription {
            let other = Probe(initialDemand: .none)
            fixture.publisher.subscribe(other)
            if let second = other.subscription, type(of: second) is AnyClass, (second as AnyObject) === shared {
                subscriptionIsObject = false
                run.note("the subscription is a shared object, not checked")
            }
            other.cancel()
        }
        let what = afterCompletion ? "the completion" : "cancel()"
        if !eventually({ weakProbe == nil }) {
            run.problem(
                "the subscriber is still retained after \(what) (the subscription or the publisher keeps a strong "
                    + "reference to it: a leak)")
        } else if subscriptionIsObject, !eventually({ weakSubscription == nil }) {
            run.problem(
                "the subscription is still retained after \(what) and after its subscriber was released (the "
                    + "publisher keeps it: a leak)")
        }
        withExtendedLifetime(fixture) {}
        return .checked
    }

    /// Whether `condition` holds now or becomes true within the wait timeout (for releases that an asynchronous
    /// publisher performs on another thread; there is no signal to wait on, so this polls).
    private func eventually(_ condition: () -> Bool) -> Bool {
        let deadline = Date(timeIntervalSinceNow: waitTimeout)
        while !condition() {
            if Date() > deadline { return false }
            usleep(1_000)
        }
        return true
    }
}
