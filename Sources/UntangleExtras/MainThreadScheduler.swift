import Dispatch
import Untangle
import UntangleSync

/// A scheduler for the main queue that runs an action at once when it is asked on the main queue and nothing it
/// queued earlier is still waiting there: RxSwift's `MainScheduler.instance`.
///
/// `receive(on: DispatchQueue.main)` always defers: a value sent on the main thread reaches the subscriber on a later
/// turn of the main queue, so a label set from `viewDidLoad` stays empty for a frame, and a synchronous test of a view
/// model sees nothing. `receive(on: MainThreadScheduler.shared)` delivers such a value in line, as RxSwift's
/// `observe(on: MainScheduler.instance)` does, and still hops to the main queue when the value comes from another
/// thread. Actions it queued run in the order they were scheduled, and an action scheduled on the main queue while
/// earlier ones wait there is queued behind them, so the order never inverts.
///
/// One difference from RxSwift's: an action scheduled from inside an action already running (in line, or from the
/// queue once its turn came) with nothing waiting runs in line too, nested, as a subject delivers synchronously.
/// RxSwift defers it to a later turn. This keeps a chain of drivers in line: RxSwift's `driver.map { }` is a Driver
/// without a second hop, while Untangle's `asDriver()` on it adds a hop, which must not defer the value.
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
/// **Thread safety:** every method may be called from any thread, concurrently. The count of actions waiting on the
/// main queue is one atomic counter; no lock is held while an action runs.
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

    // Actions scheduled with `schedule(options:_:)` that wait on the main queue: incremented before an action is
    // queued, decremented when its turn comes, before it runs. An action may run in line only on the main queue with
    // the count at zero: then nothing scheduled earlier still waits, since it would have counted from before this
    // call (a thread that queues increments first). Once zero is read on the main queue, an action scheduled later
    // by another thread queues behind this one, which runs now: order is kept. Reading zero from inside a running
    // action lets a nested action run in line (see the type's documentation).
    private let waiting = AtomicCounter(0)

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

    /// Runs `action` now if called on the main queue with nothing of this scheduler waiting there, otherwise queues
    /// it on the main queue, behind what was queued before.
    ///
    /// ```swift
    /// MainThreadScheduler.shared.schedule { label.text = "done" }
    /// ```
    public func schedule(options: SchedulerOptions?, _ action: @escaping () -> Void) {
        if Self.isOnMainQueue && waiting.load() == 0 {
            action()
            return
        }
        waiting.increment()
        DispatchQueue.main.schedule(options: options) { [waiting] in
            waiting.decrement()
            action()
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
