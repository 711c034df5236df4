import Foundation
import UntangleSync

extension Timer {
    /// Returns a publisher that repeatedly emits the current date on the given interval.
    ///
    /// The publisher is connectable: the timer is scheduled on `connect()` (or by `autoconnect()` on the first
    /// subscription), on `runLoop` in `mode`, and fires every `interval` from then on.
    ///
    /// ```swift
    /// let cancellable = Timer.publish(every: 1, on: .main, in: .common)
    ///     .autoconnect()
    ///     .sink { date in print("tick at \(date)") }
    /// ```
    ///
    /// - Parameters:
    ///   - interval: The time interval on which to publish events. For example, a value of `0.5` publishes an event
    ///     approximately every half-second.
    ///   - tolerance: Not used: as in Combine, the publisher's ``Timer/TimerPublisher/tolerance`` is `nil` whatever
    ///     is passed here (create a ``Timer/TimerPublisher`` directly to set one).
    ///   - runLoop: The run loop on which the timer runs.
    ///   - mode: The run loop mode in which to run the timer.
    ///   - options: Scheduler options passed to the timer. Defaults to `nil`.
    /// - Returns: A publisher that repeatedly emits the current date on the given interval.
    ///
    /// **Demand:** see ``Timer/TimerPublisher``.
    /// **Thread safety:** see ``Timer/TimerPublisher``.
    public static func publish(
        every interval: TimeInterval,
        tolerance: TimeInterval? = nil,
        on runLoop: RunLoop,
        in mode: RunLoop.Mode,
        options: RunLoop.SchedulerOptions? = nil
    ) -> Timer.TimerPublisher {
        TimerPublisher(interval: interval, tolerance: nil, runLoop: runLoop, mode: mode, options: options)
    }

    /// A publisher that repeatedly emits the current date on a given interval.
    ///
    /// Nothing happens until ``connect()``: it adds a repeating `Timer` to ``runLoop`` in ``mode``, first firing
    /// ``interval`` after the call. Each firing sends `Date()` to every subscriber that has demand at that moment; a
    /// subscriber without demand misses that tick. Cancelling the connection invalidates the timer; subscribers stay
    /// subscribed (the publisher never completes) and receive ticks again after a new `connect()`.
    ///
    /// ```swift
    /// let publisher = Timer.TimerPublisher(interval: 0.5, runLoop: .main, mode: .default)
    /// let cancellable = publisher.sink { print($0) }
    /// let connection = publisher.connect()   // ticks every half second, on the main run loop
    /// connection.cancel()                    // the ticks stop
    /// ```
    ///
    /// **Demand:** one date per unit of demand per subscriber; ticks beyond a subscriber's demand are dropped for it.
    /// **Thread safety:** `connect()`, `subscribe`, `request` and `cancel` (of a subscription or of the connection) may
    /// be called from any thread. Dates are delivered on the run loop's thread while it runs in `mode`. After the
    /// connection's `cancel()` returns no new tick starts. A `connect()` while connected returns the current
    /// connection (one timer per connection, however many threads connect at once).
    public final class TimerPublisher: ConnectablePublisher, @unchecked Sendable {
        /// The kind of values published by this publisher.
        public typealias Output = Date

        /// The kind of errors this publisher might publish: it never fails.
        public typealias Failure = Never

        /// The interval on which to publish events.
        public let interval: TimeInterval

        /// The allowed timing variance when emitting events; `nil` allows any variance.
        public let tolerance: TimeInterval?

        /// The run loop on which the timer runs.
        public let runLoop: RunLoop

        /// The run loop mode in which to run the timer.
        public let mode: RunLoop.Mode

        /// Scheduler options passed to the timer.
        public let options: RunLoop.SchedulerOptions?

        private let core = SubjectCore<Date, Never>(current: nil, policy: .dropWithoutDemand)
        private let connection = LockedBox<TimerConnection?>(tracking: nil)

        /// Creates a publisher that repeatedly emits the current date on the given interval.
        ///
        /// - Parameters:
        ///   - interval: The interval on which to publish events.
        ///   - tolerance: The allowed timing variance when emitting events. Defaults to `nil`, which allows any
        ///     variance.
        ///   - runLoop: The run loop on which the timer runs.
        ///   - mode: The run loop mode in which to run the timer.
        ///   - options: Scheduler options passed to the timer. Defaults to `nil`.
        public init(
            interval: TimeInterval,
            tolerance: TimeInterval? = nil,
            runLoop: RunLoop,
            mode: RunLoop.Mode,
            options: RunLoop.SchedulerOptions? = nil
        ) {
            self.interval = interval
            self.tolerance = tolerance
            self.runLoop = runLoop
            self.mode = mode
            self.options = options
        }

        /// Attaches a subscriber; it receives a date for each tick it has demand for, once connected.
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Date, S.Failure == Never {
            // As in Combine, the subscription a subscriber sees describes nothing (no description, no mirror): the
            // subject machinery's subscription is wrapped. A `Sink` never sees its subscription, so it is not.
            if subscriber is Subscribers.Sink<Date, Never> {
                core.subscribe(subscriber)
            } else {
                core.subscribe(TimerSubscriber(downstream: subscriber))
            }
        }

        /// Connects to the publisher, allowing it to produce elements, and returns an instance with which to cancel
        /// publishing.
        ///
        /// - Returns: A `Cancellable` that invalidates the timer.
        public func connect() -> Cancellable {
            let candidate = TimerConnection(publisher: self)
            let current = connection.withCriticalSection { connection -> TimerConnection in
                if let existing = connection { return existing }
                connection = candidate
                return candidate
            }
            guard current === candidate else { return current }
            // The timer is created and added with no lock held. A cancel that overtakes this has already invalidated
            // the timer, and a run loop does not schedule an invalidated timer.
            let core = core
            let tick = candidate.ticks.gating { core.send(Date()) }
            let timer = Timer(fire: Date(timeIntervalSinceNow: interval), interval: interval, repeats: true) { _ in
                tick.run()
            }
            if let tolerance {
                timer.tolerance = Swift.max(0, tolerance)
            }
            candidate.ticks.setStop { timer.invalidate() }
            runLoop.add(timer, forMode: mode)
            return candidate
        }

        fileprivate func disconnect(_ ended: TimerConnection) {
            let removed = connection.withCriticalSection { connection -> TimerConnection? in
                guard connection === ended else { return nil }
                defer { connection = nil }
                return connection
            }
            withExtendedLifetime(removed) {}
        }
    }
}

/// One connection of a ``Timer/TimerPublisher``: its timer's gate and stop closure.
///
/// ```swift
/// let connection = publisher.connect()   // a TimerConnection
/// connection.cancel()                    // invalidates the timer; the publisher may be connected again
/// ```
///
/// **Thread safety:** `cancel()` may be called from any thread, any number of times.
private final class TimerConnection: Cancellable, Sendable {
    let ticks = RepeatingActionCancellable()
    private weak let publisher: Timer.TimerPublisher?

    init(publisher: Timer.TimerPublisher) {
        self.publisher = publisher
    }

    func cancel() {
        ticks.cancel()
        publisher?.disconnect(self)
    }
}

/// What a ``Timer/TimerPublisher`` subscribes to its ticks on behalf of a subscriber: it passes everything on, and
/// hands the subscriber a ``TimerSubscription`` instead of the subject machinery's subscription.
///
/// **Demand:** the subscriber's, unchanged.
/// **Thread safety:** as the subscriber it wraps (the subject machinery serializes the calls).
private struct TimerSubscriber<Downstream: Subscriber>: TransparentSubscriber
where Downstream.Input == Date, Downstream.Failure == Never {
    typealias Input = Date
    typealias Failure = Never

    let downstream: Downstream

    func receive(subscription: Subscription) {
        downstream.receive(subscription: TimerSubscription(ticks: subscription))
    }
}

/// A timer subscription as its subscriber sees it: like Combine's, it does not describe itself.
///
/// **Demand:** passed to the ticks' subscription unchanged.
/// **Thread safety:** `request` and `cancel` may be called from any thread (the wrapped subscription's are).
private final class TimerSubscription: Subscription, @unchecked Sendable {
    // @unchecked Sendable: the only stored property is immutable and thread-safe (the subject machinery's).
    private let ticks: Subscription

    init(ticks: Subscription) {
        self.ticks = ticks
    }

    func request(_ demand: Subscribers.Demand) {
        ticks.request(demand)
    }

    func cancel() {
        ticks.cancel()
    }
}
