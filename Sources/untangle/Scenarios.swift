// The checks `untangle stress` runs: each one replays a concurrency scenario from the field against Untangle's
// public API and verifies the guarantee that should make it safe. Every check
//   - sizes its work from `--iterations` and `--threads` (documented in `scaling`, shown by `--help`/`--list`),
//   - varies thread start order, jitter, chunk sizes and cancel points from the seed,
//   - records every contract violation it sees (it does not stop at the first), and
//   - never waits without a deadline: a deadlock fails the check with a message instead of hanging the tool.

import Dispatch
import Foundation
import Untangle
import UntangleExtras
import UntangleSync

/// The size of one check's run: the units its progress bar counts and the table shows, and its thread count.
struct Workload: Sendable {
    let units: Int
    let threads: Int
}

/// One named check.
struct Scenario: Sendable {
    let name: String
    /// What a PASS proves, in one line.
    let proves: String
    /// How `--iterations` (M) and `--threads` (N) size the work, in one line.
    let scaling: String
    let workload: @Sendable (_ iterations: Int, _ threads: Int) -> Workload
    /// Runs the check; returns an optional note for the report. Violations go to `context.violations`; a thrown
    /// ``CheckFailure`` ends the check early (e.g. something did not finish before the deadline).
    let run: @Sendable (CheckContext) throws -> String?
}

enum Scenarios {
    static let all: [Scenario] = [
        Scenario(
            name: "cancelbag-concurrent-store",
            proves: "CancelBag takes concurrent stores and cancels each item exactly once, even racing cancel()",
            scaling:
                "M stores into one bag, then about M more in rounds of \(racingRoundSize) racing a cancel(); N threads",
            workload: { m, n in Workload(units: m + rounds(m, racingRoundSize).items, threads: n) },
            run: cancelBagConcurrentStore),
        Scenario(
            name: "cancelbag-starved-pool",
            proves: "stores and cancel complete while every GCD global-pool thread is blocked",
            scaling: "as cancelbag-concurrent-store, with \(starvingWorkItems) blocked GCD work items",
            workload: { m, n in Workload(units: m + rounds(m, racingRoundSize).items, threads: n) },
            run: cancelBagStarvedPool),
        Scenario(
            name: "concurrent-request",
            proves: "concurrent request(.max(k)) calls are all honoured: each value once, in order, never overlapping",
            scaling:
                "M elements in one stream, then about 2 x M in rounds of \(requestRoundSize) (half of them racing "
                + "a cancel()); N threads",
            workload: { m, n in Workload(units: m + 2 * rounds(m, requestRoundSize).items, threads: n) },
            run: concurrentRequest),
        Scenario(
            name: "reentrant-request",
            proves: "request(.max(1)) from inside every receive delivers all values with constant stack depth",
            scaling: "100 x M elements, 1 thread (1,000,000 at the default M)",
            workload: { m, _ in Workload(units: reentrantLength(m), threads: 1) },
            run: reentrantRequest),
        Scenario(
            name: "concurrent-send",
            proves: "concurrent send()s into one subject lose nothing, keep each sender's order, never overlap",
            scaling:
                "M values into one subject, then about M more in rounds of \(sendRoundSize) with a fresh subject "
                + "each (2 subscribers each time); N threads",
            workload: { m, n in Workload(units: n * max(1, m / n) + sendRounds(m, n).items, threads: n) },
            run: concurrentSend),
        Scenario(
            name: "cross-wired-subjects",
            proves: "two subjects whose subscribers send into each other never deadlock and lose nothing",
            scaling: "about M hop chains (1-16 hops, 9.5 deliveries on average) from max(N, 2) threads",
            workload: { m, n in
                let threads = max(n, 2)
                return Workload(units: threads * crossWiredChains(m, threads), threads: threads)
            },
            run: crossWiredSubjects),
        Scenario(
            name: "cancel-while-blocked",
            proves: "cancel() returns promptly while the subscriber is blocked in receive; nothing is delivered after",
            scaling: "min(200, max(1, M / 100)) rounds, each cancelled by N threads at once",
            workload: { m, n in Workload(units: blockedRounds(m), threads: n) },
            run: cancelWhileBlocked),
    ]

    /// `--help` text: every check with what it proves and how it scales.
    static var helpText: String {
        // One paragraph per check: ArgumentParser wraps long lines without keeping indentation.
        var text = "Checks (M = --iterations, N = --threads):"
        for scenario in all {
            text += "\n\n\(scenario.name): \(scenario.proves). Work: \(scenario.scaling)."
        }
        return text
    }

    // MARK: - Sizes

    static let starvingWorkItems = 128

    static func reentrantLength(_ iterations: Int) -> Int {
        100 * iterations
    }

    /// Chains per thread, about M in all.
    static func crossWiredChains(_ iterations: Int, _ threads: Int) -> Int {
        max(1, iterations / threads)
    }

    static let racingRoundSize = 100
    static let requestRoundSize = 100
    static let sendRoundSize = 250

    /// About `iterations` items cut into rounds of `size` (fewer items in one round if `iterations` is smaller).
    static func rounds(_ iterations: Int, _ size: Int) -> (count: Int, perRound: Int, items: Int) {
        let count = max(1, iterations / size)
        let perRound = min(iterations, size)
        return (count, perRound, count * perRound)
    }

    /// Rounds of concurrent-send: each sender sends the same number of values per round.
    static func sendRounds(_ iterations: Int, _ senders: Int) -> (count: Int, perSender: Int, items: Int) {
        let base = rounds(iterations, sendRoundSize)
        let perSender = max(1, base.perRound / senders)
        return (base.count, perSender, base.count * perSender * senders)
    }

    static func blockedRounds(_ iterations: Int) -> Int {
        min(200, max(1, iterations / 100))
    }

    /// Thread `index`'s share of `total` items split over `threads` threads.
    static func share(of total: Int, thread index: Int, threads: Int) -> Int {
        total / threads + (index < total % threads ? 1 : 0)
    }

    // MARK: - 1. cancelbag-concurrent-store

    // Seed 000 (LINE): `Set<AnyCancellable>` is a plain value, so `store(in: &set)` from several threads corrupts it
    // (we do not run that: it crashes the process); the "thread-safe" reader/writer array fixed the race but
    // deadlocked. CancelBag is the fix: stores from any thread, one lock held only to append or take the list.
    static func cancelBagConcurrentStore(_ context: CheckContext) throws -> String? {
        try storeIntoBagAndCancel(context, count: context.iterations)
        try storeRacingCancel(context)
        return nil
    }

    /// The LINE test, with CancelBag: N threads store M `Just(i).sink` subscriptions into one bag, each sink
    /// appending its value to a shared array behind a Lock. Then checks:
    ///   - every value arrived exactly once (the sinks ran, nothing was lost),
    ///   - the bag holds exactly M items (no store was lost to a race),
    ///   - cancel() cancels each item exactly once (each item is wrapped in an `AnyCancellable` that counts),
    ///   - cancel() again does nothing, and a store after cancel() is cancelled before store(in:) returns.
    static func storeIntoBagAndCancel(_ context: CheckContext, count: Int) throws {
        let violations = context.violations
        let progress = context.progress
        let threads = context.threads
        let bag = CancelBag()
        let received = LockedBox<[Int]>([])
        let cancels = LockedBox([UInt8](repeating: 0, count: count))

        try context.runThreads(threads, label: "storer") { index, rng in
            var batch = 0
            // Thread k stores items k, k + N, k + 2N, ...: every thread hits the bag for the whole run.
            for item in stride(from: index, to: count, by: threads) {
                rng.jitter()
                let subscription = Just(item).sink { value in received.withLock { $0.append(value) } }
                AnyCancellable {
                    cancels.withLock { $0[item] &+= 1 }
                    subscription.cancel()
                }
                .store(in: bag)
                batch += 1
                if batch == 256 {
                    progress.advance(by: batch)
                    batch = 0
                }
            }
            progress.advance(by: batch)
        }

        let values = received.withLock { $0 }.sorted()
        if values != Array(0..<count) {
            let missing = Set(0..<count).subtracting(values).count
            violations.record("\(values.count) sink values received for \(count) stores (\(missing) missing)")
        }
        violations.expect(bag.count == count, "bag holds \(bag.count) items after \(count) stores")

        bag.cancel()
        expectEachCancelledOnce(cancels, violations, "after cancel()")
        violations.expect(bag.count == 0 && bag.isCancelled, "bag not empty and cancelled after cancel()")
        bag.cancel()
        expectEachCancelledOnce(cancels, violations, "after a second cancel()")

        let late = LockedBox(0)
        AnyCancellable { late.withLock { $0 += 1 } }.store(in: bag)
        violations.expect(late.withLock { $0 } == 1, "an item stored after cancel() was not cancelled at once")
        violations.expect(bag.count == 0, "a cancelled bag kept an item stored after cancel()")
    }

    /// Stores racing a cancel(), in rounds with a fresh bag each: N threads store counting items while one of
    /// them cancels the bag at a random point. Every item must be cancelled exactly once, either by cancel() or,
    /// if it arrived later, by the store itself before store(in:) returns.
    static func storeRacingCancel(_ context: CheckContext) throws {
        let violations = context.violations
        let progress = context.progress
        let threads = context.threads
        let (roundCount, count, _) = rounds(context.iterations, racingRoundSize)
        let bags = (0..<roundCount).map { _ in CancelBag() }
        let cancels = (0..<roundCount).map { _ in LockedBox([UInt8](repeating: 0, count: count)) }

        try context.runRounds(roundCount, threads: threads, label: "storer") { index, round, rng in
            let bag = bags[round]
            let cancels = cancels[round]
            let mine = Array(stride(from: index, to: count, by: threads))
            let cancelAt = index == 0 ? Int.random(in: 0..<max(mine.count, 1), using: &rng) : -1
            for (position, item) in mine.enumerated() {
                if position == cancelAt {
                    bag.cancel()
                }
                rng.jitter()
                let bagWasCancelled = bag.isCancelled
                AnyCancellable { cancels.withLock { $0[item] &+= 1 } }.store(in: bag)
                if bagWasCancelled {
                    let times = cancels.withLock { $0[item] }
                    violations.expect(times == 1, "item stored after cancel() was cancelled \(times) times at once")
                }
            }
            progress.advance(by: mine.count)
        }
        for round in 0..<roundCount {
            bags[round].cancel()  // in case thread 0 had no items
            expectEachCancelledOnce(cancels[round], violations, "when stores raced cancel() (round \(round))")
            violations.expect(bags[round].count == 0, "bag holds \(bags[round].count) items after racing cancel()")
        }
    }

    static func expectEachCancelledOnce(_ cancels: LockedBox<[UInt8]>, _ violations: Violations, _ when: String) {
        let counts = cancels.withLock { $0 }
        if let item = counts.firstIndex(where: { $0 != 1 }) {
            let wrong = counts.filter { $0 != 1 }.count
            violations.record("\(wrong) items not cancelled exactly once \(when) (item \(item): \(counts[item]) times)")
        }
    }

    // MARK: - 2. cancelbag-starved-pool

    // Seed 000, second half: the reader/writer "thread-safe array" (a concurrent DispatchQueue with `sync` reads and
    // barrier writes) deadlocks when the GCD pool runs out of threads, because its callers block waiting for pool
    // work. Here the pool is filled with work items that block; the bag is used from dedicated threads and must
    // not care. (Whether the pool is truly exhausted depends on the platform's thread limit: the note reports how
    // many blockers ran and whether a probe work item got a thread during the check.)
    static func cancelBagStarvedPool(_ context: CheckContext) throws -> String? {
        let blockers = starvingWorkItems
        let release = DispatchSemaphore(value: 0)
        let blockersRunning = LockedBox(0)
        let released = LockedBox(false)
        // Releasing the blockers is registered as a cleanup (the harness runs it even if this check hangs) and
        // happens at most once. The blockers also wait with a timeout, as a last line of defence.
        let releaseAll: @Sendable () -> Void = {
            let first = released.withLock { flag in
                defer { flag = true }
                return !flag
            }
            guard first else { return }
            for _ in 0..<blockers {
                release.signal()
            }
        }
        context.cleanups.add(releaseAll)
        defer { releaseAll() }

        let lastResort = context.deadline + .seconds(30)
        for _ in 0..<blockers {
            DispatchQueue.global().async {
                blockersRunning.withLock { $0 += 1 }
                // untangle:disable:next blocking-wait-in-pool -- deliberate: this check starves GCD's pool to show
                // that CancelBag needs no pool thread; the waits are released by a cleanup and time out anyway.
                _ = release.wait(timeout: lastResort)
            }
        }
        let probeRan = LockedBox(false)
        DispatchQueue.global().async {
            probeRan.withLock { $0 = true }
        }

        try storeIntoBagAndCancel(context, count: context.iterations)
        try storeRacingCancel(context)

        let running = blockersRunning.withLock { $0 }
        let probe = probeRan.withLock { $0 } ? "got a thread" : "starved"
        return "\(running)/\(blockers) blocking work items running, probe work item \(probe)"
    }

    // MARK: - 3. concurrent-request

    // Seed 002: a custom publisher whose `request(_:)` updated its demand without synchronization lost requests
    // when several threads asked at once. Here a sequence publisher's subscription gets its demand from N threads
    // at once, mostly `.max(1)` with some bigger chunks; every element must arrive exactly once, in order, one
    // delivery at a time, followed by the completion.
    static func concurrentRequest(_ context: CheckContext) throws -> String? {
        // One long stream (sustained contention on one subscription), then many short ones (every round races
        // the first requests and the completion again).
        try requestConcurrently(context, rounds: 1, elements: context.iterations)
        let (roundCount, perRound, _) = rounds(context.iterations, requestRoundSize)
        try requestConcurrently(context, rounds: roundCount, elements: perRound)
        try requestRacingCancel(context)
        return nil
    }

    /// `rounds` rounds, each a sequence of `elements` elements whose whole demand comes from N threads at once.
    static func requestConcurrently(_ context: CheckContext, rounds roundCount: Int, elements count: Int) throws {
        let threads = context.threads
        let violations = context.violations
        let progress = context.progress

        // One subscriber per round, subscribed up front without demand: nothing flows until the threads ask.
        let probes = (0..<roundCount).map { round in
            let label = roundCount == 1 ? "subscriber" : "round \(round) subscriber"
            let log = DeliveryLog(label, order: .ascending, violations: violations)
            let probe = Probe(log: log, violations: violations, initialDemand: nil)
            (0..<count).publisher.subscribe(probe)
            return probe
        }
        try context.runRounds(roundCount, threads: threads, label: "requester") { index, round, rng in
            var remaining = share(of: count, thread: index, threads: threads)
            var batch = 0
            while remaining > 0 {
                rng.jitter()
                let chunk = randomChunk(&rng, upTo: remaining)
                probes[round].request(.max(chunk))
                remaining -= chunk
                batch += chunk
                if batch >= 256 {
                    progress.advance(by: batch)
                    batch = 0
                }
            }
            progress.advance(by: batch)
        }
        // A sequence delivers on a requesting thread, inside request(): now that every requester has returned,
        // nothing is in flight and the counts are final.
        for probe in probes {
            let log = probe.log
            violations.expect(log.count == count, "\(log.label): \(log.count) values delivered for \(count) requested")
            violations.expect(log.completions == 1, "\(log.label): \(log.completions) completions, expected 1")
        }
    }

    /// Mostly 1, sometimes a chunk of up to 8.
    static func randomChunk(_ rng: inout SplitMix64, upTo remaining: Int) -> Int {
        rng.next() & 3 == 0 ? Int.random(in: 1...min(8, remaining), using: &rng) : 1
    }

    /// Requests racing cancel(), in rounds: N threads request while one cancels at a random point. After cancel()
    /// returns, at most the one value already being delivered may still arrive (cancel does not wait for it:
    /// nothing in Untangle waits for another thread's callout); no completion may follow a cancel.
    static func requestRacingCancel(_ context: CheckContext) throws {
        let threads = context.threads
        let violations = context.violations
        let progress = context.progress
        let (roundCount, count, _) = rounds(context.iterations, requestRoundSize)
        let probes = (0..<roundCount).map { round in
            let log = DeliveryLog("round \(round) cancelled subscriber", order: .ascending, violations: violations)
            let probe = Probe(log: log, violations: violations, initialDemand: nil)
            (0..<count).publisher.subscribe(probe)
            return probe
        }
        let deliveredAtCancel = LockedBox([Int?](repeating: nil, count: roundCount))

        try context.runRounds(roundCount, threads: threads, label: "requester") { index, round, rng in
            let probe = probes[round]
            let mine = share(of: count, thread: index, threads: threads)
            var remaining = mine
            // Thread 0 cancels once its outstanding requests drop to this many (0: after its last request).
            var cancelWhenRemaining = index == 0 ? Int.random(in: 0..<max(mine, 1), using: &rng) : -1
            while true {
                if remaining <= cancelWhenRemaining {
                    cancelWhenRemaining = -1
                    probe.cancel()
                    let delivered = probe.log.count
                    deliveredAtCancel.withLock { $0[round] = delivered }
                }
                guard remaining > 0 else { break }
                rng.jitter()
                let chunk = randomChunk(&rng, upTo: remaining)
                probe.request(.max(chunk))
                remaining -= chunk
            }
            progress.advance(by: mine)
        }
        let cancelPoints = deliveredAtCancel.withLock { $0 }
        for (probe, atCancel) in zip(probes, cancelPoints) {
            let log = probe.log
            guard let atCancel else {
                violations.record("internal: \(log.label) was never cancelled")
                continue
            }
            let after = log.count - atCancel
            violations.expect(after <= 1, "\(log.label): \(after) values delivered after cancel() returned (max 1)")
            violations.expect(
                log.completions == 0 || atCancel == count,
                "\(log.label): completion delivered after cancel() (\(atCancel) of \(count) values had arrived)")
        }
    }

    // MARK: - 4. reentrant-request

    // Seed 002's deadlock: a subscriber that calls request(.max(1)) from inside receive(_:) deadlocks a publisher
    // that delivers under a non-recursive lock; a recursive lock "fixes" it by recursing, one stack frame set per
    // element, until the stack overflows. Untangle's rule: a reentrant request only adds demand and the emission
    // loop delivers it. The subscriber alternates between requesting from inside receive and returning .max(1),
    // and measures its own stack depth: it must stay constant (the check fails and cancels past 512 KiB instead
    // of crashing).
    static func reentrantRequest(_ context: CheckContext) throws -> String? {
        let length = reentrantLength(context.iterations)
        let violations = context.violations
        let progress = context.progress
        var patternSource = context.random(stream: 0)
        let pattern = patternSource.next()
        let stack = LockedBox<(base: UInt, deepest: UInt)>((0, 0))
        let stackLimit: UInt = 512 * 1024

        let log = DeliveryLog("subscriber", order: .ascending, violations: violations)
        let probe = Probe(log: log, violations: violations, initialDemand: .max(1)) { probe, value in
            let here = StackProbe.approximateStackPointer()
            let depth = stack.withLock { stack -> UInt in
                if stack.base == 0 {
                    stack.base = here
                }
                let depth = stack.base > here ? stack.base - here : 0
                stack.deepest = max(stack.deepest, depth)
                return depth
            }
            if depth > stackLimit {
                violations.record("stack grew by \(depth / 1024) KiB after \(value) reentrant requests (recursion)")
                probe.cancel()
                return .none
            }
            if value & 0xFFFF == 0xFFFF {
                progress.advance(by: 0x10000)
            }
            // Seed-dependent mix of the two ways to ask for the next value from inside receive(_:).
            if (UInt64(value) &* 0x9E37_79B9_7F4A_7C15 ^ pattern) >> 63 == 0 {
                probe.request(.max(1))
                return .none
            }
            return .max(1)
        }
        // The subscriber requests in receive(subscription:), so the whole sequence is delivered on this thread
        // before subscribe returns; the wait only guards against a hang.
        (0..<length).publisher.subscribe(probe)
        try context.wait(for: probe.finished, "no completion after \(log.count) of \(length) values")
        violations.expect(log.count == length, "\(log.count) values delivered for \(length) requested")
        let deepest = stack.withLock { $0.deepest }
        return "\(length) values, stack depth varied by \(deepest) bytes"
    }

    // MARK: - 5. concurrent-send

    // Seed 002's "sending values" race, on a subject: values sent from several threads at once must each reach
    // every subscriber with demand, one delivery at a time. A sender that finds another thread delivering hands
    // its value over and returns, so each sender's values keep their order. Two subscribers: `sink` and a
    // hand-written one.
    static func concurrentSend(_ context: CheckContext) throws -> String? {
        // One long stream (senders pile up behind the delivering thread), then many short ones (every round races
        // the first sends again, on a fresh subject).
        try sendConcurrently(context, rounds: 1, perSender: max(1, context.iterations / context.threads))
        let (roundCount, perSender, _) = sendRounds(context.iterations, context.threads)
        try sendConcurrently(context, rounds: roundCount, perSender: perSender)
        return nil
    }

    /// `rounds` rounds, each N threads sending `perSender` values into a fresh subject with two subscribers.
    static func sendConcurrently(_ context: CheckContext, rounds roundCount: Int, perSender: Int) throws {
        let senders = context.threads
        let violations = context.violations
        let progress = context.progress
        let rounds = (0..<roundCount).map { round in
            SendRound(label: roundCount == 1 ? "" : "round \(round) ", senders: senders, violations: violations)
        }
        try context.runRounds(roundCount, threads: senders, label: "sender") { index, round, rng in
            let subject = rounds[round].subject
            for sequence in 0..<perSender {
                rng.jitter()
                subject.send(ExpectedOrder.encode(sender: index, sequence: sequence))
                if sequence & 0xFF == 0xFF {
                    progress.advance(by: 0x100)
                }
            }
            progress.advance(by: perSender & 0xFF)
        }
        // Every send() has returned: each value was delivered by its sender or handed to the thread delivering
        // at the time, which delivers it before its own send() returns. Nothing is in flight now.
        for round in rounds {
            try round.finish(context, expecting: senders * perSender)
        }
    }

    /// One round of concurrent-send: a subject with two subscribers, `sink` and a hand-written ``Probe``.
    final class SendRound: Sendable {
        let subject: PassthroughSubject<Int, Never>
        let sinkLog: DeliveryLog
        let sinkFinished: DispatchSemaphore
        let cancellable: AnyCancellable
        let probe: Probe

        init(label: String, senders: Int, violations: Violations) {
            let subject = PassthroughSubject<Int, Never>()
            let sinkLog = DeliveryLog("\(label)sink", order: .perSender(count: senders), violations: violations)
            let sinkFinished = DispatchSemaphore(value: 0)
            cancellable = subject.sink(
                receiveCompletion: { _ in
                    sinkLog.completion()
                    sinkFinished.signal()
                },
                receiveValue: { value in
                    sinkLog.begin(value)
                    sinkLog.end()
                })
            let probeLog = DeliveryLog("\(label)subscriber", order: .perSender(count: senders), violations: violations)
            probe = Probe(log: probeLog, violations: violations, initialDemand: .unlimited)
            subject.subscribe(probe)
            self.subject = subject
            self.sinkLog = sinkLog
            self.sinkFinished = sinkFinished
        }

        /// Completes the subject and checks that both subscribers got everything, then the completion.
        func finish(_ context: CheckContext, expecting total: Int) throws {
            subject.send(completion: .finished)
            try context.wait(for: sinkFinished, "\(sinkLog.label) never received the completion")
            try context.wait(for: probe.finished, "\(probe.log.label) never received the completion")
            for log in [sinkLog, probe.log] {
                context.violations.expect(
                    log.count == total, "\(log.label) received \(log.count) of \(total) values")
            }
        }
    }

    // MARK: - 6. cross-wired-subjects

    // Seed 002's recursive-lock "fix", taken to two objects: A's subscriber sends into B and B's into A. With
    // recursive locks held across delivery, thread 1 holds A's lock and waits for B's while thread 2 holds B's and
    // waits for A's: a deadlock. Untangle holds no lock during delivery, so this must finish. Each chain starts
    // with a hop count and every delivery forwards count - 1 to the other subject until 0, so a chain of h hops
    // makes exactly h + 1 deliveries; the total must match.
    static func crossWiredSubjects(_ context: CheckContext) throws -> String? {
        let threads = max(context.threads, 2)
        let chains = crossWiredChains(context.iterations, threads)
        let violations = context.violations
        let progress = context.progress
        let a = PassthroughSubject<Int, Never>()
        let b = PassthroughSubject<Int, Never>()
        let logA = DeliveryLog("subscriber of A", order: .any, violations: violations)
        let logB = DeliveryLog("subscriber of B", order: .any, violations: violations)
        let expected = LockedBox(0)

        let cancelA = a.sink { hops in
            logA.begin(hops)
            defer { logA.end() }
            if hops > 0 {
                b.send(hops - 1)
            } else {
                progress.advance()  // a chain ended
            }
        }
        let cancelB = b.sink { hops in
            logB.begin(hops)
            defer { logB.end() }
            if hops > 0 {
                a.send(hops - 1)
            } else {
                progress.advance()  // a chain ended
            }
        }

        try context.runThreads(threads, label: "sender") { index, rng in
            // Half the threads start chains at A, half at B, so both directions run at once.
            let start = index.isMultiple(of: 2) ? a : b
            var deliveries = 0
            for _ in 0..<chains {
                rng.jitter()
                let hops = Int.random(in: 1...16, using: &rng)
                deliveries += hops + 1
                start.send(hops)
            }
            expected.withLock { $0 += deliveries }
        }
        // As in concurrent-send: once every top-level send() has returned, no hop is in flight.
        let want = expected.withLock { $0 }
        let got = logA.count + logB.count
        violations.expect(got == want, "\(got) deliveries, expected \(want)")
        withExtendedLifetime((cancelA, cancelB)) {}
        return "\(want) deliveries"
    }

    // MARK: - 7. cancel-while-blocked

    // Seed 002's cancellation: cancel() may come from any thread at any time, including while the subscriber is
    // busy in receive(_:). A publisher that cancels under the lock it delivers under makes cancel() wait for the
    // subscriber (here: forever). Each round blocks a subscriber inside receive on a semaphore, sends more values
    // behind it, then N threads cancel at once. Every cancel() must return within 10 s while the subscriber is
    // still blocked; after the subscriber is released nothing more may arrive: not the queued values, not values
    // sent later, not a completion. Sources rotate: PassthroughSubject, CurrentValueSubject, a sequence; the
    // cancel goes through the subscription directly or through a CancelBag.
    static func cancelWhileBlocked(_ context: CheckContext) throws -> String? {
        var rng = context.random(stream: 0)
        for round in 0..<blockedRounds(context.iterations) {
            try blockedRound(context, round: round, rng: &rng)
            context.progress.advance()
        }
        return nil
    }

    enum BlockingSource: CaseIterable {
        case passthroughSubject, currentValueSubject, sequence
    }

    static func blockedRound(_ context: CheckContext, round: Int, rng: inout SplitMix64) throws {
        let violations = context.violations
        let source = BlockingSource.allCases.randomElement(using: &rng)!
        let viaBag = Bool.random(using: &rng)
        let queuedBehind = Int.random(in: 1...8, using: &rng)
        let label = "round \(round) (\(source))"
        let promptly = DispatchTime.now() + .seconds(10)

        let entered = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let deadline = context.deadline
        let log = DeliveryLog("\(label) subscriber", order: .any, violations: violations)
        let probe = Probe(log: log, violations: violations, initialDemand: .unlimited) { _, value in
            if value == 0 {
                entered.signal()
                if release.wait(timeout: deadline) == .timedOut {
                    violations.record("\(label): the blocked subscriber was never released")
                }
            }
            return .none
        }
        context.cleanups.add { release.signal() }
        let bag = CancelBag()
        AnyCancellable(probe).store(in: bag)

        // The delivering thread: it ends up blocked inside receive(0).
        let passthrough = PassthroughSubject<Int, Never>()
        let currentValue = CurrentValueSubject<Int, Never>(0)
        switch source {
        case .passthroughSubject:
            passthrough.subscribe(probe)
        case .currentValueSubject, .sequence:
            break
        }
        let deliverer = context.startThreads(1, label: "deliverer") { _, _ in
            switch source {
            case .passthroughSubject:
                passthrough.send(0)
            case .currentValueSubject:
                currentValue.subscribe(probe)  // delivers the current value, 0, on this thread
            case .sequence:
                (0..<1_000).publisher.subscribe(probe)
            }
        }
        try context.wait(for: entered, "\(label): the subscriber never received its first value")

        // While the subscriber is blocked, another thread sends more: those sends must not wait for it either.
        if source != .sequence {
            let sender = context.startThreads(1, label: "sender") { _, _ in
                for value in 1...queuedBehind {
                    passthrough.send(value)
                    currentValue.send(value)
                }
            }
            if sender.join(until: min(promptly, deadline)) > 0 {
                violations.record("\(label): send() did not return while another thread's receive was blocked")
            }
        }

        // The point of the check: N threads cancel while the subscriber is still blocked.
        let cancellers = context.startThreads(context.threads, label: "canceller") { _, rng in
            rng.jitter()
            if viaBag {
                bag.cancel()
            } else {
                probe.cancel()
            }
        }
        let stuck = cancellers.join(until: min(promptly, deadline))
        release.signal()
        if stuck > 0 {
            throw CheckFailure(
                "\(label): \(stuck) of \(context.threads) cancel() calls still blocked after 10 s "
                    + "while the subscriber was blocked in receive")
        }
        if deliverer.join(until: deadline) > 0 {
            throw CheckFailure("\(label): the delivering thread did not return after the subscriber was released")
        }

        // After the cancel: later values and a completion must not arrive either.
        passthrough.send(1_000)
        passthrough.send(completion: .finished)
        currentValue.send(1_000)
        currentValue.send(completion: .finished)
        violations.expect(log.count == 1, "\(label): \(log.count - 1) values delivered after cancel()")
        violations.expect(log.completions == 0, "\(label): a completion was delivered after cancel()")
    }
}
