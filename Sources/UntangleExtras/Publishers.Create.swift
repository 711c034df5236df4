import Untangle
import UntangleSync

extension AnyPublisher {
    /// Creates a publisher from an imperative producer: the custom publisher done right.
    ///
    /// For each subscriber, `body` runs once, right after the subscriber received its subscription. It gets a
    /// ``Publishers/Create/Subscriber`` to call (from any thread, at any time) and returns a cancellable that tears
    /// the producer down. Untangle takes care of the rest: values are delivered one at a time and never beyond the
    /// subscriber's demand (the others wait in a buffer, see `bufferingPolicy`), nothing is delivered after the
    /// completion or after a cancel, and the returned cancellable runs exactly once.
    ///
    /// ```swift
    /// let ticks = AnyPublisher<Int, Never>.create { subscriber in
    ///     let timer = DispatchSource.makeTimerSource()
    ///     var count = 0
    ///     timer.setEventHandler { count += 1; subscriber.send(count) }
    ///     timer.schedule(deadline: .now(), repeating: 1)
    ///     timer.resume()
    ///     return AnyCancellable { timer.cancel() }
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - bufferingPolicy: what to keep of the values sent beyond the subscriber's demand (default: all of them).
    ///   - body: starts producing for one subscriber; returns what stops it.
    ///
    /// **Demand:** values within the subscriber's demand are delivered at once; the others are buffered per
    /// `bufferingPolicy` and delivered as the subscriber requests more. The completion is delivered after the
    /// buffered values.
    /// **Thread safety:** the subscriber's `send(_:)` and `send(completion:)` may be called from any thread,
    /// concurrently and reentrantly; the downstream receives one signal at a time. A `send` made from inside the
    /// downstream's `receive` (value n sends n + 1) is delivered after that `receive` returns, not nested inside it,
    /// so a producer that answers each value with the next one runs in constant stack depth however long the chain.
    /// `body` and the returned cancellable run with no library lock held.
    @inlinable
    public static func create(
        bufferingPolicy: Publishers.Create<Output, Failure>.BufferingPolicy = .unbounded,
        _ body: @escaping (Publishers.Create<Output, Failure>.Subscriber) -> any Cancellable
    ) -> AnyPublisher<Output, Failure> {
        // Performance: `@inlinable` so that the eraser is made in the client, where `AnyPublisher` forms its subscribe
        // path specialized for `Publishers.Create` (see `PublisherBox`): that path reaches `Publishers.Create`'s
        // specialized `receive(subscriber:)`, and the producer's `send` runs specialized code.
        return Publishers.Create(bufferingPolicy: bufferingPolicy, body).eraseToAnyPublisher()
    }
}

extension Publishers {
    /// A publisher driven by an imperative producer; see `AnyPublisher.create(bufferingPolicy:_:)`.
    ///
    /// ```swift
    /// let publisher = Publishers.Create<Int, Never> { subscriber in
    ///     subscriber.send(1)
    ///     subscriber.send(completion: .finished)
    ///     return AnyCancellable {}
    /// }
    /// ```
    ///
    /// Each subscription runs `body` again (the publisher is cold). The cancellable `body` returns runs exactly
    /// once, with no library lock held: when the subscriber cancels (on the cancelling thread), or right after the
    /// producer sends a completion (on the producer's thread, once the completion was handed to the delivery
    /// machinery). If that happens while `body` is still running, it runs as soon as `body` returns it.
    ///
    /// **Demand:** per subscriber; values beyond demand are kept according to ``BufferingPolicy`` (unbounded by
    /// default) and delivered when requested; the completion follows the buffered values.
    /// **Thread safety:** `subscribe` from any thread; the ``Subscriber`` may be used from any thread,
    /// concurrently, and values sent concurrently are delivered one at a time, in the order they were buffered. A
    /// reentrant `send` (from inside the downstream's `receive`) is delivered after the current `receive` returns
    /// (a trampoline): stack depth stays constant, unlike a subject's depth-first nested delivery.
    public struct Create<Output, Failure: Error>: Publisher {
        /// What a `Create` publisher keeps of the values sent while its subscriber has no demand for them.
        ///
        /// ```swift
        /// let latest = AnyPublisher<Int, Never>.create(bufferingPolicy: .bufferingNewest(1)) { subscriber in
        ///     (0..<100).forEach(subscriber.send)   // a subscriber asking for one value at a time sees the newest
        ///     return AnyCancellable {}
        /// }
        /// ```
        ///
        /// Values covered by demand are never dropped; the limit counts only values that wait for demand.
        ///
        /// **Demand:** as described for each case.
        /// **Thread safety:** a value.
        public enum BufferingPolicy: Sendable, Equatable {
            /// Keep every value until it is requested (memory grows with a producer that outpaces its subscriber).
            case unbounded
            /// Keep at most `n` values waiting for demand: a new value beyond them drops the oldest waiting one.
            /// `n == 0` drops every value sent without demand.
            case bufferingNewest(Int)
            /// Keep at most `n` values waiting for demand: once they fill the buffer, newer values are dropped.
            /// `n == 0` drops every value sent without demand.
            case bufferingOldest(Int)
        }

        /// The producer's handle: sends values and the completion to one subscriber.
        ///
        /// ```swift
        /// subscriber.send(42)
        /// subscriber.send(completion: .finished)
        /// ```
        ///
        /// Calls after the completion, or after the subscriber cancelled, are ignored.
        ///
        /// **Demand:** values beyond the subscriber's demand are buffered by the publisher's ``BufferingPolicy``.
        /// **Thread safety:** every method may be called from any thread, concurrently and reentrantly (from inside
        /// the downstream's `receive`, in which case the value is delivered after that `receive` returns); no call
        /// waits for another thread's delivery.
        public struct Subscriber: @unchecked Sendable {
            @usableFromInline let sink: CreateSink<Output, Failure>

            @inlinable
            init(sink: CreateSink<Output, Failure>) {
                self.sink = sink
            }

            /// Sends a value (delivered now if the subscriber has demand, otherwise buffered).
            @inlinable
            public func send(_ value: Output) {
                sink.send(value)
            }

            /// Sends the completion; only the first one counts. The producer's cancellable then runs.
            public func send(completion: Subscribers.Completion<Failure>) {
                sink.send(completion: completion)
            }
        }

        /// What to keep of the values sent beyond demand.
        public let bufferingPolicy: BufferingPolicy
        @usableFromInline let body: (Subscriber) -> any Cancellable

        /// Creates the publisher; `body` runs once per subscription.
        public init(
            bufferingPolicy: BufferingPolicy = .unbounded, _ body: @escaping (Subscriber) -> any Cancellable
        ) {
            switch bufferingPolicy {
            case .unbounded:
                break
            case .bufferingNewest(let n), .bufferingOldest(let n):
                precondition(n >= 0, "Publishers.Create: a buffering limit must not be negative (got \(n))")
            }
            self.bufferingPolicy = bufferingPolicy
            self.body = body
        }

        /// What the subscriber's emitter keeps beyond demand, per `bufferingPolicy`.
        @usableFromInline
        var waitingLimit: EmitterWaitingLimit {
            switch bufferingPolicy {
            case .unbounded: return .unbounded
            case .bufferingNewest(let n): return .newest(n)
            case .bufferingOldest(let n): return .oldest(n)
            }
        }

        /// Starts a producer for `subscriber`.
        @inlinable
        public func receive<S: Untangle.Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            // Performance: `receive(subscriber:)` is `@inlinable` so that the producer's per-value entry (see
            // `CreateSink`) is formed here, in the client's code specialized for the concrete subscriber: the
            // producer's `send` then runs specialized code (no runtime metadata lookup per value). The closure captures
            // nothing (it gets its subscription as the first argument), so it costs no allocation.
            let subscription = CreateSubscription(
                downstream: subscriber, limit: waitingLimit,
                sendEntry: { sink, value in
                    // The first argument is always this subscription (a sink calls its entry with itself).
                    let subscription = RawReference.downcast(sink, to: CreateSubscription<S>.self)
                    let dropped = subscription.emitter.offer(value, limit: subscription.limit)
                    withExtendedLifetime(dropped) {}
                })
            subscription.run(body)
        }
    }
}

/// The type-erased face of a `Create` subscription that the producer's ``Publishers/Create/Subscriber`` calls.
///
/// Performance: the entries are stored closures, not overridden methods (as in the core's `SubjectConduit`): an
/// override in a generic subclass runs that subclass's unspecialized code, a runtime metadata lookup for every
/// generic type it touches, per call. The closures are formed in `CreateSubscription`'s `@inlinable` initializer,
/// reached from `Publishers.Create`'s `@inlinable` `receive(subscriber:)`, which the client specializes for the
/// concrete subscriber. They capture nothing (each gets its subscription as the first argument), so they cost no
/// allocation.
@usableFromInline
class CreateSink<Output, Failure: Error>: @unchecked Sendable {
    /// Sends a value to the sink passed as the first argument (see `send(_:)`).
    @usableFromInline let sendEntry: (CreateSink, Output) -> Void
    /// Sends the completion to the sink passed as the first argument (see `send(completion:)`).
    @usableFromInline let completeEntry: (CreateSink, Subscribers.Completion<Failure>) -> Void
    /// Requests demand (non-nil) or cancels (nil) for the sink passed as the first argument: the subscription's
    /// `request` and `cancel`, which are witnesses of a generic class and so run unspecialized code themselves.
    @usableFromInline let controlEntry: (CreateSink, Subscribers.Demand?) -> Void

    @inlinable
    init(
        sendEntry: @escaping (CreateSink, Output) -> Void,
        completeEntry: @escaping (CreateSink, Subscribers.Completion<Failure>) -> Void,
        controlEntry: @escaping (CreateSink, Subscribers.Demand?) -> Void
    ) {
        self.sendEntry = sendEntry
        self.completeEntry = completeEntry
        self.controlEntry = controlEntry
    }

    @inlinable
    final func send(_ value: Output) {
        sendEntry(self, value)
    }

    @inlinable
    final func send(completion: Subscribers.Completion<Failure>) {
        completeEntry(self, completion)
    }
}

/// One subscriber's connection to a `Create` producer.
@usableFromInline
final class CreateSubscription<Downstream: Subscriber>: CreateSink<Downstream.Input, Downstream.Failure>,
    Subscription, CustomStringConvertible, @unchecked Sendable
{
    @usableFromInline let emitter: Emitter<Downstream>
    /// What is kept beyond demand (the publisher's `bufferingPolicy`).
    @usableFromInline let limit: EmitterWaitingLimit
    @usableFromInline let state = LockedBox(tracking: CreateStateMachine.running)

    @inlinable
    init(
        downstream: Downstream, limit: EmitterWaitingLimit,
        sendEntry: @escaping (CreateSink<Downstream.Input, Downstream.Failure>, Downstream.Input) -> Void
    ) {
        // Only `offer(_:limit:)` (in `sendEntry`) feeds this emitter, with the limit above: its own policy is never
        // consulted.
        emitter = Emitter(downstream: downstream, policy: .unbounded)
        self.limit = limit
        // The first argument is always this class (a sink calls its entries with itself), so the downcast is safe.
        super.init(
            sendEntry: sendEntry,
            completeEntry: { sink, completion in
                RawReference.downcast(sink, to: CreateSubscription.self).complete(completion)
            },
            controlEntry: { sink, demand in
                let subscription = RawReference.downcast(sink, to: CreateSubscription.self)
                if let demand {
                    subscription.emitter.request(demand)
                } else {
                    subscription.end()
                }
            })
    }

    // The downstream gets its subscription before the producer starts, so a producer that sends synchronously
    // finds the demand the downstream asked for in `receive(subscription:)`. A downstream that cancelled in there
    // never starts the producer.
    //
    // Performance: `@inlinable`, reached from the inlinable `receive(subscriber:)`, so that the emitter's start (the
    // subscription callout and the drain after it) runs specialized for the subscriber (a trait's one value per
    // subscription, each a runtime metadata lookup per generic type touched, otherwise).
    @inlinable
    func run(_ body: (Publishers.Create<Downstream.Input, Downstream.Failure>.Subscriber) -> any Cancellable) {
        emitter.start(subscription: self)
        guard !state.withCriticalSection({ $0.isEnded }) else { return }
        CalloutCheck.assertNoLockHeld("Create running its producer")
        let teardown = body(Publishers.Create<Downstream.Input, Downstream.Failure>.Subscriber(sink: self))
        let runNow = state.withCriticalSection { $0.bodyReturned(teardown) }
        CalloutCheck.assertNoLockHeld("Create running a producer's teardown")
        runNow?.cancel()
    }

    // Values (`sendEntry`, formed in `Publishers.Create.receive(subscriber:)`) go through the trampoline: a send from
    // inside the downstream's `receive` (on the delivering thread) is queued, not delivered nested, and the
    // delivering thread's loop delivers it once that `receive` returned (see `Emitter.offer(_:limit:)`): stack depth
    // stays constant however long a chain of sends answering values. Values are queued under the emitter's lock, so
    // concurrent sends keep the order in which they were queued, and a completion sent after them never overtakes
    // them.
    /// The producer's completion (through `completeEntry`).
    @inlinable
    func complete(_ completion: Subscribers.Completion<Downstream.Failure>) {
        emitter.complete(completion, order: .afterQueuedValues)
        let teardown = state.withCriticalSection { $0.end() }
        CalloutCheck.assertNoLockHeld("Create running a producer's teardown")
        teardown?.cancel()
    }

    /// The downstream's cancel (through `controlEntry`).
    @inlinable
    func end() {
        emitter.cancel()
        let teardown = state.withCriticalSection { $0.end() }
        CalloutCheck.assertNoLockHeld("Create running a producer's teardown")
        teardown?.cancel()
    }

    @usableFromInline
    func request(_ demand: Subscribers.Demand) {
        demand.preconditionNonZero()
        controlEntry(self, demand)
    }

    @usableFromInline
    func cancel() {
        controlEntry(self, nil)
    }

    @usableFromInline
    var description: String { "Create" }
}
