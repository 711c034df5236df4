import Untangle
import UntangleSync

/// The per-subscriber delivery machinery of UntangleExtras' producers (`Publishers.Create`, `ReplaySubject`): a FIFO
/// of values with a ``BufferLimit``, delivered one at a time through the core's `Emitter`.
///
/// The emitter serializes delivery but only knows the policies the core needs, so it does not hold the values
/// here: it queues *tokens* (`Void`), one per value this buffer accepted, and each delivered token takes the oldest
/// value from the buffer. Tokens are indistinguishable, so the order in which concurrent producers hand theirs to
/// the emitter does not matter; the buffer's order is the delivery order.
///
/// ```swift
/// let emitter = BufferedEmitter(downstream: subscriber, limit: .newest(16))
/// emitter.start(subscription: subscription)
/// emitter.send(1)                    // any thread
/// emitter.complete(.finished)        // after the buffered values
/// ```
///
/// **Demand:** the downstream's requests go to the emitter and are mirrored here, so the buffer knows how many of
/// its values are already covered by demand; only the values beyond demand count against the limit.
/// **Thread safety:** every method may be called from any thread. The buffer lock is a leaf: nothing is called
/// while it is held, so it may be taken inside another library lock (``push(_:)`` is meant for that).
final class BufferedEmitter<Downstream: Subscriber>: @unchecked Sendable {
    typealias Input = Downstream.Input

    struct Buffer {
        var values = RingBuffer<Input>()
        /// Requested and not yet delivered, as far as this buffer knows (mirrors the emitter's count).
        var demand = Subscribers.Demand.none
        /// No more values are accepted (completed or cancelled).
        var closed = false
        /// Tokens for accepted values that their producer has not handed to the emitter yet.
        var unoffered = 0
        /// A completion waiting for those tokens: the emitter must not see it before them.
        var pendingCompletion: Subscribers.Completion<Downstream.Failure>?
        let limit: BufferLimit

        /// How many buffered values are waiting for demand.
        var waiting: Int {
            values.count - Swift.min(values.count, demand.max ?? Int.max)
        }

        // A value is accepted with a new token when the values beyond demand are under the limit. When they are at
        // the limit, `.newest` swaps the oldest value for the new one and `.oldest` refuses the new one; neither
        // changes the count, so no token is added: tokens stay one per buffered value.
        mutating func push(_ value: Input) -> Push {
            guard !closed else { return Push(accepted: false, token: false, dropped: value) }
            let limit: Int
            switch self.limit {
            case .unbounded:
                limit = Int.max
            case .newest(let n), .oldest(let n):
                limit = n
            }
            // Covered by demand (the buffer holds fewer values than were requested), or room among the waiting.
            if values.count < (demand.max ?? Int.max) || waiting < limit {
                values.append(value)
                unoffered += 1
                return Push(accepted: true, token: true, dropped: nil)
            }
            guard case .newest = self.limit, limit > 0 else {
                return Push(accepted: false, token: false, dropped: value)
            }
            // The oldest *waiting* value is the first one not covered by demand.
            let covered = values.count - waiting
            let dropped: Input?
            if covered == 0 {
                dropped = values.popFirst()
            } else {
                var tail = values.truncate(keepingFirst: covered)
                dropped = tail.removeFirst()
                for element in tail {
                    values.append(element)
                }
            }
            values.append(value)
            return Push(accepted: true, token: false, dropped: dropped)
        }

        /// The producer handed its token to the emitter: the completion waiting for it, if it was the last one.
        mutating func tokenOffered() -> Subscribers.Completion<Downstream.Failure>? {
            unoffered -= 1
            guard unoffered == 0, let completion = pendingCompletion else { return nil }
            pendingCompletion = nil
            return completion
        }

        /// Closes the buffer; returns the completion to hand to the emitter now, or nil if it must wait for tokens
        /// still on their way (or the buffer was already closed).
        mutating func close(_ completion: Subscribers.Completion<Downstream.Failure>)
            -> Subscribers.Completion<Downstream.Failure>?
        {
            guard !closed else { return nil }
            closed = true
            guard unoffered == 0 else {
                pendingCompletion = completion
                return nil
            }
            return completion
        }
    }

    /// What ``push(_:)`` decided; hand it to ``finishPush(_:)`` after leaving any lock.
    struct Push {
        /// The new value is in the buffer.
        let accepted: Bool
        /// The buffer grew: a token must be handed to the emitter.
        let token: Bool
        /// A value dropped by the limit (or refused after closing), released by ``finishPush(_:)``.
        let dropped: Input?
    }

    /// The subscriber the emitter delivers to: it turns each token into the oldest buffered value.
    struct TokenSubscriber: Subscriber {
        typealias Input = Void
        typealias Failure = Downstream.Failure

        let downstream: Downstream
        let buffer: LockedBox<Buffer>
        let combineIdentifier = CombineIdentifier()

        func receive(subscription: Subscription) {
            CalloutCheck.assertNoLockHeld("a buffered emitter delivering its subscription")
            downstream.receive(subscription: subscription)
        }

        func receive(_ input: Void) -> Subscribers.Demand {
            let value = buffer.withCriticalSection { buffer -> Downstream.Input? in
                guard let value = buffer.values.popFirst() else { return nil }
                if buffer.demand > .none {
                    buffer.demand -= 1
                }
                return value
            }
            // Tokens are one per buffered value, so a token always finds one; should it not, the demand it used is
            // given back rather than lost.
            guard let value else { return .max(1) }
            CalloutCheck.assertNoLockHeld("a buffered emitter delivering a value")
            let more = downstream.receive(value)
            if more > .none {
                buffer.withCriticalSection { $0.demand += more }
            }
            return more
        }

        func receive(completion: Subscribers.Completion<Downstream.Failure>) {
            CalloutCheck.assertNoLockHeld("a buffered emitter delivering its completion")
            downstream.receive(completion: completion)
        }
    }

    let buffer: LockedBox<Buffer>
    let emitter: Emitter<TokenSubscriber>

    /// Creates the emitter with `initial` values already buffered (a replay), delivered first.
    init(downstream: Downstream, limit: BufferLimit, initial: [Input] = []) {
        var start = Buffer(limit: limit)
        for value in initial {
            start.values.append(value)
        }
        buffer = LockedBox(tracking: start)
        emitter = Emitter(downstream: TokenSubscriber(downstream: downstream, buffer: buffer), policy: .unbounded)
        // The emitter has not started: these tokens are queued, nothing is delivered.
        for _ in initial {
            emitter.offer(())
        }
    }

    /// Delivers `receive(subscription:)` to the downstream, then what it allows. Call once.
    func start(subscription: Subscription) {
        emitter.start(subscription: subscription)
    }

    /// Buffers a value and delivers what demand allows. Returns whether the value was kept.
    @discardableResult
    func send(_ value: Input) -> Bool {
        finishPush(push(value))
    }

    /// The locked half of ``send(_:)``: buffers a value (takes only the buffer's leaf lock, calls nothing).
    func push(_ value: Input) -> Push {
        buffer.withCriticalSection { $0.push(value) }
    }

    /// The unlocked half of ``send(_:)``: hands the token to the emitter and releases a dropped value.
    //
    // A completion accepted while tokens are still on their way (pushed under a lock, not yet offered) is handed to
    // the emitter by the last of those producers, after its token: a value accepted before the completion is never
    // overtaken by it.
    @discardableResult
    func finishPush(_ push: Push) -> Bool {
        withExtendedLifetime(push.dropped) {}
        if push.token {
            emitter.offer(())
            if let completion = buffer.withCriticalSection({ $0.tokenOffered() }) {
                emitter.complete(completion, order: .afterQueuedValues)
            }
        }
        return push.accepted
    }

    /// Closes the buffer and delivers `completion` after every buffered value (as demand allows). Only the first
    /// completion counts.
    func complete(_ completion: Subscribers.Completion<Downstream.Failure>) {
        if let completion = buffer.withCriticalSection({ $0.close(completion) }) {
            emitter.complete(completion, order: .afterQueuedValues)
        }
    }

    /// Adds downstream demand.
    func request(_ demand: Subscribers.Demand) {
        buffer.withCriticalSection { $0.demand += demand }
        emitter.request(demand)
    }

    /// Stops delivery and releases the downstream and the buffered values. Returns true for the call that ended
    /// the emitter (false if it had already been cancelled or completed).
    @discardableResult
    func cancel() -> Bool {
        let cancelled = emitter.cancel()
        let released = buffer.withCriticalSection { buffer -> RingBuffer<Input> in
            buffer.closed = true
            buffer.pendingCompletion = nil
            return buffer.values.takeAll()
        }
        withExtendedLifetime(released) {}
        return cancelled
    }
}
