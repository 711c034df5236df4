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
    public static func create(
        bufferingPolicy: Publishers.Create<Output, Failure>.BufferingPolicy = .unbounded,
        _ body: @escaping (Publishers.Create<Output, Failure>.Subscriber) -> any Cancellable
    ) -> AnyPublisher<Output, Failure> {
        Publishers.Create(bufferingPolicy: bufferingPolicy, body).eraseToAnyPublisher()
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
            let sink: CreateSink<Output, Failure>

            /// Sends a value (delivered now if the subscriber has demand, otherwise buffered).
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
        let body: (Subscriber) -> any Cancellable

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

        /// Starts a producer for `subscriber`.
        public func receive<S: Untangle.Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            let limit: BufferLimit
            switch bufferingPolicy {
            case .unbounded: limit = .unbounded
            case .bufferingNewest(let n): limit = .newest(n)
            case .bufferingOldest(let n): limit = .oldest(n)
            }
            let subscription = CreateSubscription(downstream: subscriber, limit: limit)
            subscription.run(body)
        }
    }
}

/// The type-erased face of a `Create` subscription that the producer's ``Publishers/Create/Subscriber`` calls.
class CreateSink<Output, Failure: Error>: @unchecked Sendable {
    func send(_ value: Output) {
        preconditionFailure("CreateSink.send is abstract")
    }

    func send(completion: Subscribers.Completion<Failure>) {
        preconditionFailure("CreateSink.send(completion:) is abstract")
    }
}

/// Recognizes a `send` made from inside the downstream's own callout, and keeps the tokens of such sends until the
/// callout is over.
///
/// Deliveries are serialized, so at most one thread is inside the downstream at a time: `callout` holds that
/// thread's identity (0: nobody). Only that thread ever writes its own identity there, so a thread that reads its own
/// identity is inside a callout, whatever other threads do.
private final class CreateTrampoline: @unchecked Sendable {
    /// `ThreadID.bits` of the thread inside the downstream, or 0.
    let callout = AtomicWord(0)
    /// Tokens of values buffered by reentrant sends, not yet handed to the emitter.
    let owed = AtomicWord(0)

    /// Whether the calling thread is inside the downstream right now.
    var isReentrant: Bool {
        callout.load() == ThreadID.current.bits
    }

    func owe() {
        var current = owed.load()
        while !owed.compareExchange(expected: current, desired: current + 1) {
            current = owed.load()
        }
    }
}

/// The downstream, as the emitter sees it: marks the delivering thread as inside a callout for the duration of
/// each call.
private struct CalloutMarking<Downstream: Subscriber>: Subscriber {
    typealias Input = Downstream.Input
    typealias Failure = Downstream.Failure

    let downstream: Downstream
    let trampoline: CreateTrampoline
    let combineIdentifier = CombineIdentifier()

    // A nested callout on the same thread (values requested from inside `receive(subscription:)`) finds its own
    // identity there and puts it back on the way out; a top-level one finds 0 and restores 0.
    private func marked<Result>(_ body: () -> Result) -> Result {
        let previous = trampoline.callout.exchange(ThreadID.current.bits)
        defer { _ = trampoline.callout.exchange(previous) }
        return body()
    }

    func receive(subscription: Subscription) {
        marked { downstream.receive(subscription: subscription) }
    }

    func receive(_ input: Input) -> Subscribers.Demand {
        marked { downstream.receive(input) }
    }

    func receive(completion: Subscribers.Completion<Failure>) {
        marked { downstream.receive(completion: completion) }
    }
}

/// One subscriber's connection to a `Create` producer.
private final class CreateSubscription<Downstream: Subscriber>: CreateSink<Downstream.Input, Downstream.Failure>,
    Subscription, CustomStringConvertible, @unchecked Sendable
{
    /// The producer's teardown, as it travels between `body` returning it and the end of the subscription.
    private enum State {
        /// `body` runs (or has not started): no teardown yet.
        case running
        /// `body` returned this teardown, run when the subscription ends.
        case returned(teardown: any Cancellable)
        /// The subscription ended (cancel or completion); a teardown returned later runs at once.
        case ended

        var isEnded: Bool {
            if case .ended = self { return true }
            return false
        }

        /// The subscription ended (cancel or completion): the teardown to run now, if `body` already returned it.
        mutating func end() -> (any Cancellable)? {
            switch self {
            case .running:
                self = .ended
                return nil
            case .returned(let teardown):
                self = .ended
                return teardown
            case .ended:
                return nil
            }
        }

        /// `body` returned its teardown: keep it, or hand it back to run now if the subscription already ended.
        mutating func bodyReturned(_ teardown: any Cancellable) -> (any Cancellable)? {
            switch self {
            case .running:
                self = .returned(teardown: teardown)
                return nil
            case .returned:
                assertionFailure("Create's producer returned twice")
                return teardown
            case .ended:
                return teardown
            }
        }
    }

    private let emitter: BufferedEmitter<CalloutMarking<Downstream>>
    private let trampoline = CreateTrampoline()
    private let state = LockedBox(tracking: State.running)

    init(downstream: Downstream, limit: BufferLimit) {
        emitter = BufferedEmitter(
            downstream: CalloutMarking(downstream: downstream, trampoline: trampoline), limit: limit)
    }

    // The downstream gets its subscription before the producer starts, so a producer that sends synchronously
    // finds the demand the downstream asked for in `receive(subscription:)`. A downstream that cancelled in there
    // never starts the producer.
    func run(_ body: (Publishers.Create<Downstream.Input, Downstream.Failure>.Subscriber) -> any Cancellable) {
        emitter.start(subscription: self)
        flushOwedTokens()
        guard !state.withCriticalSection({ $0.isEnded }) else { return }
        CalloutCheck.assertNoLockHeld("Create running its producer")
        let teardown = body(Publishers.Create<Downstream.Input, Downstream.Failure>.Subscriber(sink: self))
        let runNow = state.withCriticalSection { $0.bodyReturned(teardown) }
        CalloutCheck.assertNoLockHeld("Create running a producer's teardown")
        runNow?.cancel()
    }

    // The trampoline. A send from inside the downstream's `receive` (on the delivering thread) buffers its value but
    // does not hand the token to the emitter: the emitter would deliver it nested, one stack level deeper per value.
    // The token is owed instead, and handed over by the outermost call into this subscription on that thread (the
    // `send`, `request` or `run` whose delivery the callout is part of) once the emitter returned, that is once the
    // callout is over: that call then owns the emitter afresh and delivers the value from its own loop. Every
    // delivery runs inside one of those calls, so an owed token always has a caller to flush it; a call from another
    // thread may flush it first (its token then queues behind the running delivery). The buffer is FIFO and tokens
    // are interchangeable, so values keep the order in which they were sent; a completion sent meanwhile waits for
    // the owed tokens (they count as not yet offered), so it never overtakes their values.
    override func send(_ value: Downstream.Input) {
        if trampoline.isReentrant {
            let push = emitter.push(value)
            if push.token { trampoline.owe() }
            withExtendedLifetime(push.dropped) {}
            return
        }
        emitter.send(value)
        flushOwedTokens()
    }

    /// Hands owed tokens to the emitter, unless the calling thread is itself inside a callout (its outer call
    /// flushes them when the callout is over).
    private func flushOwedTokens() {
        while trampoline.owed.load() > 0, !trampoline.isReentrant {
            let owed = trampoline.owed.exchange(0)
            for _ in 0..<owed {
                emitter.finishPush(BufferedEmitter.Push(accepted: true, token: true, dropped: nil))
            }
        }
    }

    override func send(completion: Subscribers.Completion<Downstream.Failure>) {
        emitter.complete(completion)
        flushOwedTokens()
        let teardown = state.withCriticalSection { $0.end() }
        CalloutCheck.assertNoLockHeld("Create running a producer's teardown")
        teardown?.cancel()
    }

    func request(_ demand: Subscribers.Demand) {
        demand.preconditionNonZero()
        emitter.request(demand)
        flushOwedTokens()
    }

    func cancel() {
        emitter.cancel()
        let teardown = state.withCriticalSection { $0.end() }
        CalloutCheck.assertNoLockHeld("Create running a producer's teardown")
        teardown?.cancel()
    }

    var description: String { "Create" }
}
