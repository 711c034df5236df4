import Untangle

extension Publisher {
    /// Publishes a value only after `dueTime` passes without a newer one, like `debounce(for:scheduler:options:)`,
    /// and says what happens to a value still counting down when the upstream finishes.
    ///
    /// `onFinish: .deliverPendingValue` is RxSwift's `debounce(_:scheduler:)`: the waiting value is delivered on the
    /// scheduler, then the completion (`Observable.of(1, 2, 3).debounce(...)` publishes 3). `.dropPendingValue` is
    /// Combine's: the completion alone. A failure drops the waiting value either way and is delivered at once.
    /// `untangle migrate` rewrites RxSwift's `debounce(_:scheduler:)` to this overload with `.deliverPendingValue`.
    ///
    /// ```swift
    /// let cancellable = [1, 2, 3].publisher
    ///     .debounce(for: .seconds(1), scheduler: DispatchQueue.main, onFinish: .deliverPendingValue)
    ///     .sink { print($0) }   // 3, then finished
    /// ```
    ///
    /// **Demand:** the upstream is asked for `.unlimited`; a value whose quiet period ends while the subscriber has no
    /// demand is dropped, but the value waiting at the finish waits for demand (and the completion behind it).
    /// **Thread safety:** as `debounce(for:scheduler:options:)`: values and the completion are delivered on the
    /// scheduler, one at a time; `request`/`cancel` from any thread; once `cancel()` returns, nothing is delivered.
    public func debounce<S: Scheduler>(
        for dueTime: S.SchedulerTimeType.Stride,
        scheduler: S,
        options: S.SchedulerOptions? = nil,
        onFinish: DebounceFinish
    ) -> Publishers.DebounceWithFinish<Self, S> {
        Publishers.DebounceWithFinish(
            debounce(for: dueTime, scheduler: scheduler, options: options), onFinish: onFinish)
    }
}

extension Publishers {
    /// A `debounce` that says what happens to the value counting down when the upstream finishes; see
    /// `debounce(for:scheduler:options:onFinish:)`. The core's `Publishers.Debounce` with its
    /// package option (the same state machine and timers).
    ///
    /// ```swift
    /// let settled = Publishers.DebounceWithFinish(
    ///     subject.debounce(for: .seconds(1), scheduler: DispatchQueue.main), onFinish: .deliverPendingValue)
    /// ```
    ///
    /// **Demand:** see `debounce(for:scheduler:options:onFinish:)`.
    /// **Thread safety:** see `debounce(for:scheduler:options:onFinish:)`.
    public struct DebounceWithFinish<Upstream: Publisher, Context: Scheduler>: Publisher {
        /// The upstream's values.
        public typealias Output = Upstream.Output
        /// The upstream's failure.
        public typealias Failure = Upstream.Failure

        /// The debounce: its upstream, quiet period, scheduler and options.
        public let debounce: Publishers.Debounce<Upstream, Context>
        /// What happens to the value counting down when the upstream finishes.
        public let onFinish: DebounceFinish

        /// Creates the operator from Combine's `debounce` and what happens at the finish.
        public init(_ debounce: Publishers.Debounce<Upstream, Context>, onFinish: DebounceFinish) {
            self.debounce = debounce
            self.onFinish = onFinish
        }

        /// Subscribes `subscriber` through the operator.
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            debounce.receive(subscriber: subscriber, deliveringPendingValueOnFinish: onFinish == .deliverPendingValue)
        }
    }
}
