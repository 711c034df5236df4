// The machinery every check runs on: a deterministic random number generator, the context a check receives,
// violation bookkeeping, a progress counter, and a way to start worker threads together and join them with a
// deadline. Nothing here uses Untangle's internals: the locks come from UntangleSync's public API, the threads are
// plain Foundation `Thread`s (not GCD, so a starved global pool cannot stall the harness itself).

import Dispatch
import Foundation
import UntangleSync

// MARK: - Randomness

/// SplitMix64: a tiny, fast, well-mixed generator. Seeded from `--seed`, it makes a run's *inputs* reproducible
/// (thread start order, jitter spins, request chunk sizes, cancel points); the OS scheduler still decides the exact
/// interleaving, so a seed replays the same pressure, not the same schedule.
struct SplitMix64: RandomNumberGenerator, Sendable {
    private var state: UInt64

    init(seed: UInt64) {
        state = seed
    }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// An independent generator for one consumer (a check, a thread), derived from a seed and a stable label.
    static func derived(from seed: UInt64, _ labels: UInt64...) -> SplitMix64 {
        var mixer = SplitMix64(seed: seed)
        for label in labels {
            mixer = SplitMix64(seed: mixer.next() ^ label)
        }
        return mixer
    }

    /// Busy-waits for `iterations` steps by advancing the generator (the loop cannot be optimized away: the state
    /// it changes is used afterwards).
    mutating func spin(_ iterations: Int) {
        for _ in 0..<iterations {
            _ = next()
        }
    }

    /// Random scheduling noise between two operations: usually nothing, sometimes a short spin, rarely a yield of
    /// the processor. It shakes interleavings on a machine with fewer cores than threads.
    mutating func jitter() {
        let roll = next()
        if roll & 7 == 0 {
            spin(Int((roll >> 8) & 0xFF))
        } else if roll & 0x3FF == 1 {
            sched_yield()
        }
    }
}

/// FNV-1a: a stable hash of a check's name (Swift's `Hasher` is seeded per process, so it cannot be used to derive
/// reproducible generators).
func stableHash(_ text: String) -> UInt64 {
    var hash: UInt64 = 0xCBF2_9CE4_8422_2325
    for byte in text.utf8 {
        hash = (hash ^ UInt64(byte)) &* 0x100_0000_01B3
    }
    return hash
}

// MARK: - Outcomes

/// A check cannot go on (typically: something did not finish before the deadline). Thrown from the check's own
/// thread; the harness reports `detail` as the failure.
struct CheckFailure: Error, CustomStringConvertible {
    let detail: String

    init(_ detail: String) {
        self.detail = detail
    }

    var description: String { detail }
}

/// The contract violations a check observed, from any thread. A check keeps going after a violation (so it can also
/// report how many there were); the first one is the detail shown in the results table.
final class Violations: Sendable {
    private struct State {
        var first: [String] = []
        var count = 0
    }

    private let state = LockedBox(State())

    /// Records a violation (thread-safe).
    func record(_ detail: String) {
        state.withLock { state in
            state.count += 1
            if state.first.count < 5 {
                state.first.append(detail)
            }
        }
    }

    /// Records `detail` unless `condition` holds.
    func expect(_ condition: Bool, _ detail: @autoclosure () -> String) {
        if !condition {
            record(detail())
        }
    }

    /// Nil when nothing was recorded; otherwise the first violation and how many more there were.
    var summary: String? {
        state.withLock { state in
            guard let first = state.first.first else { return nil }
            return state.count == 1 ? first : "\(first) (and \(state.count - 1) more)"
        }
    }
}

/// How far a check has got, in the units of its workload; read by the progress bar while the check runs. Workers
/// advance it in batches so that the counter's lock does not itself serialize the threads under test.
final class CheckProgress: Sendable {
    let total: Int
    private let done = LockedBox(0)

    init(total: Int) {
        self.total = max(total, 1)
    }

    func advance(by units: Int = 1) {
        done.withLock { $0 += units }
    }

    var fraction: Double {
        Double(min(done.withLock { $0 }, total)) / Double(total)
    }
}

// MARK: - Context

/// Everything a check needs: its sizes, its randomness, its deadline, and where to report.
struct CheckContext: Sendable {
    /// The check's name (also mixed into its random generators).
    let name: String
    /// `--iterations`, before the check's own scaling.
    let iterations: Int
    /// `--threads`.
    let threads: Int
    /// The run's seed.
    let seed: UInt64
    /// Every wait inside a check gives up at this point and fails the check with a precise message; the harness's
    /// watchdog fires a little later, as the last resort for a check stuck where it cannot notice.
    let deadline: DispatchTime
    let progress: CheckProgress
    let violations: Violations
    let cleanups: Cleanups

    /// A generator for one consumer inside the check (`stream` tells consumers apart, e.g. a thread index).
    func random(stream: Int) -> SplitMix64 {
        SplitMix64.derived(from: seed, stableHash(name), UInt64(truncatingIfNeeded: stream))
    }

    /// Waits for `semaphore` until the deadline; throws `CheckFailure(what)` if it is not signalled by then.
    func wait(for semaphore: DispatchSemaphore, _ what: @autoclosure () -> String) throws {
        if semaphore.wait(timeout: deadline) == .timedOut {
            throw CheckFailure(what())
        }
    }

    /// Runs `body(index, &random)` on `count` dedicated threads that start together, and waits for all of them
    /// until the deadline; throws, naming how many are stuck, if some have not finished by then (in these checks
    /// that means a deadlock, or a thread blocked on another thread's callout).
    func runThreads(
        _ count: Int, label: String = "worker", body: @escaping @Sendable (Int, inout SplitMix64) -> Void
    ) throws {
        let workers = startThreads(count, label: label, body: body)
        let stuck = workers.join(until: deadline)
        if stuck > 0 {
            throw CheckFailure("\(stuck) of \(count) \(label) threads still running at the deadline (deadlock?)")
        }
    }

    /// Like ``runThreads(_:label:body:)``, but the threads run `rounds` rounds, `body(index, round, &random)`,
    /// meeting at a barrier before each: every round starts with all threads contending again (start-up races,
    /// such as a first request racing a subscription being set up, happen once per round, not once per run). A
    /// check prepares each round's objects up front, so the threads need no coordination besides the barrier.
    func runRounds(
        _ rounds: Int, threads count: Int, label: String = "worker",
        body: @escaping @Sendable (_ index: Int, _ round: Int, inout SplitMix64) -> Void
    ) throws {
        let barrier = Barrier(parties: count)
        let deadline = deadline
        try runThreads(count, label: label) { index, rng in
            for round in 0..<rounds {
                // A thread that cannot pass the barrier by the deadline gives up; some other thread is stuck,
                // and runThreads reports it.
                guard barrier.arriveAndWait(until: deadline) else { return }
                body(index, round, &rng)
            }
        }
    }

    /// Starts `count` dedicated threads running `body(index, &random)` and returns at once.
    ///
    /// The threads are created in a seed-dependent order and held at a start line until all exist, so they
    /// contend from their first operation. Each gets its own generator.
    func startThreads(
        _ count: Int, label: String = "worker", body: @escaping @Sendable (Int, inout SplitMix64) -> Void
    ) -> Workers {
        // The creating thread is a party too: the workers leave the line once all of them exist.
        let startLine = Barrier(parties: count + 1)
        let workers = Workers(count: count)
        var order = Array(0..<count)
        var shuffler = random(stream: -1 - count)
        order.shuffle(using: &shuffler)
        for index in order {
            let seedForThread = random(stream: index)
            let deadline = deadline
            let thread = Thread {
                var rng = seedForThread
                // The start line has a deadline too: a harness bug must not leave threads spinning forever.
                if startLine.arriveAndWait(until: deadline) {
                    body(index, &rng)
                }
                workers.finishedOne()
            }
            thread.name = "untangle-\(name)-\(label)-\(index)"
            thread.start()
        }
        _ = startLine.arriveAndWait(until: deadline)
        return workers
    }
}

/// A set of started threads that can be joined with a timeout.
final class Workers: Sendable {
    private let finished = DispatchGroup()
    private let running: LockedBox<Int>

    fileprivate init(count: Int) {
        running = LockedBox(count)
        for _ in 0..<count {
            finished.enter()
        }
    }

    fileprivate func finishedOne() {
        running.withLock { $0 -= 1 }
        finished.leave()
    }

    /// Waits until every thread has finished or `deadline` passes; returns how many are still running.
    func join(until deadline: DispatchTime) -> Int {
        _ = finished.wait(timeout: deadline)
        return running.withLock { $0 }
    }
}

/// A reusable start line: `arriveAndWait` returns when all parties of the current generation have arrived.
///
/// Waiting threads spin, yielding the processor on each turn, instead of sleeping on a semaphore: a woken sleeper
/// needs tens of microseconds to run again, long enough for a fast thread to finish its whole share alone, and
/// then nothing races. Spinning keeps every waiter runnable, so the threads on the cores when the last party
/// arrives leave the line together.
final class Barrier: Sendable {
    private struct State {
        var arrived = 0
        var generation = 0
    }

    private let parties: Int
    private let state = LockedBox(State())

    init(parties: Int) {
        self.parties = parties
    }

    /// Returns true when everybody arrived, false if `deadline` passed first.
    func arriveAndWait(until deadline: DispatchTime) -> Bool {
        let parties = parties
        let generation = state.withLock { state -> Int in
            let generation = state.generation
            state.arrived += 1
            if state.arrived == parties {
                state.arrived = 0
                state.generation += 1
            }
            return generation
        }
        var turns = 0
        while state.withLock({ $0.generation }) == generation {
            turns += 1
            if turns & 0xFF == 0 && DispatchTime.now() >= deadline {
                return false
            }
            sched_yield()
        }
        return true
    }
}

/// Actions that must run even if a check hangs (e.g. releasing work items that block the GCD pool). The check
/// runs them itself when it ends; the harness runs them if its watchdog gives up on the check. Each runs once.
final class Cleanups: Sendable {
    private let pending = LockedBox<[@Sendable () -> Void]>([])

    func add(_ action: @escaping @Sendable () -> Void) {
        pending.withLock { $0.append(action) }
    }

    /// Runs and forgets every registered action (outside the lock: an action may take other locks).
    func runAll() {
        let actions = pending.withLock { pending in
            defer { pending = [] }
            return pending
        }
        for action in actions {
            action()
        }
    }
}

// MARK: - Clock

/// Monotonic seconds since an arbitrary origin.
func monotonicSeconds() -> Double {
    Double(DispatchTime.now().uptimeNanoseconds) / 1e9
}
