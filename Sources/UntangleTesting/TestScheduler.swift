import Dispatch
import Untangle
import UntangleSync

/// A virtual-time scheduler for tests: nothing runs until the test advances the clock.
///
/// `TestScheduler` keeps time with `DispatchQueue`'s types (`SchedulerTimeType` is
/// `DispatchQueue.SchedulerTimeType`, options are `DispatchQueue.SchedulerOptions` and are ignored), so it can stand
/// in for a `DispatchQueue` wherever code accepts `some Scheduler<DispatchQueue.SchedulerTimeType>` or is generic over
/// a `Scheduler`. The clock starts at uptime 1 ns (not 0, which dispatch reads as "now") unless you pass `now:`.
///
/// - Actions run when the clock reaches their date, in date order; actions due at the same instant run in the order
///   they were scheduled (FIFO). While an action runs, `now` is its due date.
/// - `schedule(options:_:)` and dates in the past mean "at the current instant": they run on the next `advance`.
/// - Actions scheduled by a running action run during the same `advance` if they are due by its target.
/// - Repeating actions are rescheduled at `due + interval` just before each run; their interval must be positive.
/// - The clock never goes backwards: `advance(to:)` an earlier instant only runs what is already due.
///
/// ```swift
/// let scheduler = TestScheduler()
/// var fired: [Int] = []
/// scheduler.schedule(after: scheduler.now.advanced(by: .seconds(2))) { fired.append(2) }
/// scheduler.schedule(after: scheduler.now.advanced(by: .seconds(1))) { fired.append(1) }
/// scheduler.advance(by: .seconds(1))   // fired == [1]
/// scheduler.run()                      // fired == [1, 2]
/// ```
///
/// **Thread safety:** every method may be called from any thread. State lives in a lock; actions run outside it,
/// one at a time, on the thread that is currently advancing the clock. When `advance` or `run` is called while
/// another call is already running actions (from another thread, or from inside an action), it only moves the target
/// (or asks for a full run) and returns at once: the call already running actions runs the newly due ones before it
/// returns. No thread ever waits for another thread's action.
public final class TestScheduler: Scheduler, @unchecked Sendable {
    // @unchecked Sendable: the only stored property is `state`, a LockedBox whose value is read and written only
    // inside `withCriticalSection`; entries hold user actions in `ScheduledAction`, which run outside the lock.

    /// Virtual time, in `DispatchQueue`'s type.
    public typealias SchedulerTimeType = DispatchQueue.SchedulerTimeType

    /// Accepted for compatibility with `DispatchQueue` and ignored.
    public typealias SchedulerOptions = DispatchQueue.SchedulerOptions

    /// The default limit on the number of actions one ``run(limit:)`` performs.
    public static let defaultRunLimit = 100_000

    private struct Entry {
        var due: SchedulerTimeType
        /// Tie-breaker: a strictly increasing number given at (re)scheduling time.
        var sequence: Int
        /// The repeat interval, or `nil` for a one-shot action.
        var interval: SchedulerTimeType.Stride?
        /// Identifies a repeating action across its reschedulings, for cancellation.
        var id: Int
        var action: ScheduledAction
    }

    private struct State {
        var now: SchedulerTimeType
        var nextSequence = 0
        /// Pending actions, sorted by (due, sequence).
        var entries: [Entry] = []
        /// Whether some call is currently running actions.
        var isDraining = false
        /// The instant the running drain must reach.
        var target: SchedulerTimeType
        /// The number of actions a requested `run()` may still perform, or `nil` if no run was requested.
        var runBudget: Int?

        mutating func insert(
            due: SchedulerTimeType,
            interval: SchedulerTimeType.Stride?,
            id: Int?,
            action: ScheduledAction
        ) -> Int {
            let sequence = nextSequence
            nextSequence += 1
            let entry = Entry(
                due: Swift.max(due, now),
                sequence: sequence,
                interval: interval,
                id: id ?? sequence,
                action: action
            )
            // Sequences only grow, so the new entry goes after every entry due at the same instant or earlier:
            // FIFO among equal dates.
            let index = entries.firstIndex { $0.due > entry.due } ?? entries.endIndex
            entries.insert(entry, at: index)
            return entry.id
        }

        /// Decides the next step of a drain: the next action to run (already removed, and rescheduled if it
        /// repeats), or `nil` when the drain is over, in which case the drain is marked finished.
        mutating func nextAction() -> ScheduledAction? {
            if let first = entries.first {
                var budgetAllows = false
                if let budget = runBudget, budget > 0 {
                    budgetAllows = true
                    runBudget = budget - 1
                }
                if budgetAllows || first.due <= target {
                    let entry = entries.removeFirst()
                    now = Swift.max(now, entry.due)
                    target = Swift.max(target, now)
                    if let interval = entry.interval {
                        _ = insert(
                            due: entry.due.advanced(by: interval),
                            interval: interval,
                            id: entry.id,
                            action: entry.action
                        )
                    }
                    return entry.action
                }
            }
            now = Swift.max(now, target)
            runBudget = nil
            isDraining = false
            return nil
        }

        mutating func claimDrain() -> Bool {
            if isDraining { return false }
            isDraining = true
            return true
        }

        mutating func removeEntries(id: Int) -> [Entry] {
            let removed = entries.filter { $0.id == id }
            entries.removeAll { $0.id == id }
            return removed
        }
    }

    private let state: LockedBox<State>

    /// Creates a scheduler whose clock reads `now`.
    ///
    /// ```swift
    /// let scheduler = TestScheduler()
    /// ```
    ///
    /// **Thread safety:** the new scheduler may be used from any thread.
    public init(now: SchedulerTimeType = SchedulerTimeType(DispatchTime(uptimeNanoseconds: 1))) {
        state = LockedBox(State(now: now, target: now))
    }

    /// The virtual current instant.
    public var now: SchedulerTimeType {
        state.withCriticalSection { $0.now }
    }

    /// The minimum tolerance: zero (tolerances are ignored; actions run exactly at their date).
    public var minimumTolerance: SchedulerTimeType.Stride {
        .zero
    }

    /// The number of actions waiting to run, counting each repeating action once.
    ///
    /// ```swift
    /// let pending = scheduler.scheduledActionCount
    /// ```
    ///
    /// **Thread safety:** may be read from any thread; the value may be stale once read if others schedule.
    public var scheduledActionCount: Int {
        state.withCriticalSection { $0.entries.count }
    }

    /// Schedules the action at the current instant: it runs on the next `advance` (or `run`).
    public func schedule(options: SchedulerOptions?, _ action: @escaping () -> Void) {
        let action = ScheduledAction(action)
        state.withCriticalSection { state in
            _ = state.insert(due: state.now, interval: nil, id: nil, action: action)
        }
    }

    /// Schedules the action at `date` (or at the current instant if `date` has passed). The tolerance is ignored.
    public func schedule(
        after date: SchedulerTimeType,
        tolerance: SchedulerTimeType.Stride,
        options: SchedulerOptions?,
        _ action: @escaping () -> Void
    ) {
        let action = ScheduledAction(action)
        state.withCriticalSection { state in
            _ = state.insert(due: date, interval: nil, id: nil, action: action)
        }
    }

    /// Schedules the action at `date`, then every `interval`, until the returned `Cancellable` is cancelled or
    /// deinitialized. The tolerance is ignored.
    ///
    /// - Precondition: `interval` is positive (a zero interval would make any `advance` loop forever).
    public func schedule(
        after date: SchedulerTimeType,
        interval: SchedulerTimeType.Stride,
        tolerance: SchedulerTimeType.Stride,
        options: SchedulerOptions?,
        _ action: @escaping () -> Void
    ) -> Cancellable {
        precondition(interval > .zero, "TestScheduler: a repeating action needs a positive interval, got \(interval)")
        let cancellable = RepeatingActionCancellable()
        // The gate makes cancel() effective at once even for a run that the drain already took out of `entries`.
        let action = cancellable.gating(action)
        let id = state.withCriticalSection { state in
            state.insert(due: date, interval: interval, id: nil, action: action)
        }
        let box = state
        cancellable.setStop {
            // The removed entries hold user closures: they are released here, after unlocking.
            let removed = box.withCriticalSection { $0.removeEntries(id: id) }
            _ = removed
        }
        return cancellable
    }

    /// Moves the clock forward by `stride`, running every action due by then. A negative stride counts as zero.
    ///
    /// ```swift
    /// scheduler.advance(by: .milliseconds(500))
    /// scheduler.advance()   // runs what is due now
    /// ```
    ///
    /// **Thread safety:** see the type: if another call is running actions, this one moves its target and returns.
    public func advance(by stride: SchedulerTimeType.Stride = .zero) {
        let shouldDrain = state.withCriticalSection { state -> Bool in
            // Relative to the furthest target already requested, so two concurrent `advance(by: 1)` add up.
            state.target = Swift.max(state.target, state.now).advanced(by: Swift.max(stride, .zero))
            return state.claimDrain()
        }
        if shouldDrain { drain() }
    }

    /// Moves the clock to `instant` (never backwards), running every action due by then.
    ///
    /// ```swift
    /// scheduler.advance(to: scheduler.now.advanced(by: .seconds(3)))
    /// ```
    ///
    /// **Thread safety:** see the type: if another call is running actions, this one moves its target and returns.
    public func advance(to instant: SchedulerTimeType) {
        let shouldDrain = state.withCriticalSection { state -> Bool in
            state.target = Swift.max(state.target, instant)
            return state.claimDrain()
        }
        if shouldDrain { drain() }
    }

    /// Runs every scheduled action, moving the clock to each one's date, until none is left or `limit` actions have
    /// run in this call (a guard: repeating actions never run out). Actions still pending after the limit stay
    /// scheduled and the clock stays at the last run action's date; ``scheduledActionCount`` tells whether any are
    /// left.
    ///
    /// ```swift
    /// scheduler.run()
    /// ```
    ///
    /// **Thread safety:** see the type: if another call is running actions, this one hands it the budget and returns.
    public func run(limit: Int = TestScheduler.defaultRunLimit) {
        let shouldDrain = state.withCriticalSection { state -> Bool in
            state.runBudget = Swift.max(state.runBudget ?? 0, limit)
            return state.claimDrain()
        }
        if shouldDrain { drain() }
    }

    // One thread at a time owns the drain (`isDraining`). Each step is decided under the lock (which action, the new
    // `now`, the rescheduled repeat) and the action runs after unlocking. Other callers only raise `target` or
    // `runBudget`, which the owner sees at its next step, so nobody blocks on another thread's action and actions never
    // overlap. The owner gives up ownership in the same critical section in which it finds nothing left to do, so a
    // request made after that finds `isDraining == false` and drains itself: no request is lost.
    private func drain() {
        while let action = state.withCriticalSection({ $0.nextAction() }) {
            action.run()
        }
    }
}
