import Untangle
import UntangleSync

extension Publishers {
    /// Counts 0, 1, 2... on a scheduler, one number per `period`, starting when subscribed: RxSwift's
    /// `Observable<Int>.interval(_:scheduler:)` (and, with `delay`, `Observable<Int>.timer(_:period:scheduler:)`).
    ///
    /// Each subscriber gets its own timer and its own count from 0, started by its subscription and stopped by its
    /// cancel. Compare `Timer.publish(every:on:in:)`, which is shared, counts dates rather than ticks, and sends nothing
    /// until connected (forgetting `autoconnect()` makes a timer that never fires).
    ///
    /// ```swift
    /// let ticks = Publishers.Interval(.seconds(1), scheduler: DispatchQueue.main)
    ///     .sink { print("tick", $0) }   // tick 0 after one second, tick 1 after two...
    /// ```
    ///
    /// **Demand:** ticks the subscriber has not asked for wait in a buffer and are delivered, in order, as it asks
    /// (RxSwift's interval has no backpressure: no tick is lost).
    /// **Thread safety:** subscribe and cancel from any thread; ticks are delivered on the scheduler, one at a time.
    public struct Interval<Context: Scheduler>: Publisher {
        /// The number of the tick, from 0.
        public typealias Output = Int
        /// The count never fails.
        public typealias Failure = Never

        /// The time between two ticks.
        public let period: Context.SchedulerTimeType.Stride
        /// The time before the first tick (`period` by default).
        public let delay: Context.SchedulerTimeType.Stride
        /// Where the ticks are sent.
        public let scheduler: Context

        /// Ticks every `period` on `scheduler`, the first after `delay` (default: one period).
        ///
        /// ```swift
        /// let polls = Publishers.Interval(.seconds(30), delay: .zero, scheduler: DispatchQueue.main)
        /// ```
        public init(
            _ period: Context.SchedulerTimeType.Stride, delay: Context.SchedulerTimeType.Stride? = nil,
            scheduler: Context
        ) {
            self.period = period
            self.delay = delay ?? period
            self.scheduler = scheduler
        }

        /// Starts a timer for this subscriber.
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Int, S.Failure == Never {
            let period = period
            let delay = delay
            let scheduler = scheduler
            Publishers.Create<Int, Never> { ticks in
                // The count lives with this subscription. A repeating action may run on a concurrent queue's
                // threads; the atomic counter gives each run its own number whatever thread it runs on.
                let count = AtomicCounter(0)
                return scheduler.schedule(
                    after: scheduler.now.advanced(by: delay), interval: period, tolerance: scheduler.minimumTolerance,
                    options: nil
                ) {
                    ticks.send(count.increment() - 1)
                }
            }.receive(subscriber: subscriber)
        }
    }
}
