import Dispatch
import Untangle
import UntangleSync

/// A scheduler for the main queue that runs an action at once when it is asked on the main queue and nothing it
/// scheduled is still waiting or running: RxSwift's `MainScheduler.instance`.
///
/// `receive(on: DispatchQueue.main)` always defers: a value sent on the main thread reaches the subscriber on a later
/// turn of the main queue, so a label set from `viewDidLoad` stays empty for a frame, and a synchronous test of a view
/// model sees nothing. `receive(on: MainThreadScheduler.shared)` delivers such a value in line, as RxSwift's
/// `observe(on: MainScheduler.instance)` does, and still hops to the main queue when the value comes from another
/// thread. Actions it queued run in the order they were scheduled, and an action scheduled while earlier ones are
/// queued (or while one runs, from inside it) waits behind them, so the order never inverts and an action never runs
/// nested inside another.
///
/// ```swift
/// let cancellable = viewModel.title
///     .receive(on: MainThreadScheduler.shared)
///     .sink { label.text = $0 }   // in line when the title changes on the main thread
/// ```
///
/// Time is the main queue's (`DispatchQueue.SchedulerTimeType`): `schedule(after:)` and the repeating form run on the
/// main queue after the delay, like `DispatchQueue.main`'s. "On the main queue" means what RxSwift checks: code running
/// from the main queue (or on the main thread before it runs its loop), as `DispatchQueue.getSpecific` reports it.
///
/// **Demand:** not applicable (a scheduler).
/// **Thread safety:** every method may be called from any thread, concurrently. The count of actions queued and
/// running is one atomic counter; no lock is held while an action runs.
public final class MainThreadScheduler: Scheduler, Sendable {
    /// The main queue's time.
    public typealias SchedulerTimeType = DispatchQueue.SchedulerTimeType

    /// The main queue's options (used for the actions that go through the queue).
    public typealias SchedulerOptions = DispatchQueue.SchedulerOptions

    /// The scheduler: one instance, since "nothing queued ahead" counts every action scheduled through it.
    ///
    /// ```swift
    /// let onMain = publisher.receive(on: MainThreadScheduler.shared)
    /// ```
    public static let shared = MainThreadScheduler()

    // Actions scheduled with `schedule(options:_:)` that have not finished: the one running in line and those queued
    // on the main queue. An action may run in line only when its own increment found zero: then nothing scheduled
    // earlier is waiting (it would have counted), and no action of ours is running further up this thread's stack
    // (it would count until it returns). Each path decrements after its action returned, so the count is zero again
    // only when everything scheduled so far has run. This is RxSwift's MainScheduler rule, with one counter.
    private let pending = AtomicCounter(0)

    private init() {}

    /// Whether the caller runs on the main queue (or on the main thread outside any queue), as RxSwift's
    /// `DispatchQueue.isMain` tells it: by a value set on the main queue.
    ///
    /// ```swift
    /// if MainThreadScheduler.isOnMainQueue { label.text = title }
    /// ```
    ///
    /// **Thread safety:** may be called from any thread.
    public static var isOnMainQueue: Bool {
        DispatchQueue.getSpecific(key: mainQueueKey) != nil
    }

    /// The key of a value set on the main queue, once (RxSwift's technique).
    private static let mainQueueKey: DispatchSpecificKey<UInt8> = {
        let key = DispatchSpecificKey<UInt8>()
        DispatchQueue.main.setSpecific(key: key, value: 1)
        return key
    }()

    /// The main queue's current time.
    public var now: SchedulerTimeType {
        DispatchQueue.main.now
    }

    /// The main queue's minimum tolerance (zero).
    public var minimumTolerance: SchedulerTimeType.Stride {
        DispatchQueue.main.minimumTolerance
    }

    /// Runs `action` now if called on the main queue with nothing of this scheduler queued or running, otherwise
    /// queues it on the main queue, behind what was queued before.
    ///
    /// ```swift
    /// MainThreadScheduler.shared.schedule { label.text = "done" }
    /// ```
    public func schedule(options: SchedulerOptions?, _ action: @escaping () -> Void) {
        if pending.increment() == 1 && Self.isOnMainQueue {
            action()
            pending.decrement()
            return
        }
        DispatchQueue.main.schedule(options: options) { [pending] in
            action()
            pending.decrement()
        }
    }

    /// Runs `action` on the main queue after `date` (never in line).
    ///
    /// ```swift
    /// let main = MainThreadScheduler.shared
    /// main.schedule(after: main.now.advanced(by: .milliseconds(300))) { hideToast() }
    /// ```
    public func schedule(
        after date: SchedulerTimeType, tolerance: SchedulerTimeType.Stride, options: SchedulerOptions?,
        _ action: @escaping () -> Void
    ) {
        DispatchQueue.main.schedule(after: date, tolerance: tolerance, options: options, action)
    }

    /// Runs `action` on the main queue at `date`, then every `interval`, until the returned value is cancelled (or
    /// released).
    ///
    /// ```swift
    /// let main = MainThreadScheduler.shared
    /// let ticks = main.schedule(after: main.now, interval: .seconds(1), tolerance: .zero) { tick() }
    /// ```
    public func schedule(
        after date: SchedulerTimeType, interval: SchedulerTimeType.Stride, tolerance: SchedulerTimeType.Stride,
        options: SchedulerOptions?, _ action: @escaping () -> Void
    ) -> Cancellable {
        DispatchQueue.main.schedule(after: date, interval: interval, tolerance: tolerance, options: options, action)
    }
}
