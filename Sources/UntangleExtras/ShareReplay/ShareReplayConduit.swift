import Untangle
import UntangleSync

/// One subscriber of a `share(replay:)`: the subscription it receives, and a small serializing queue that delivers
/// the replayed and live values within its demand, keeping at most `limit` values beyond it (the newest ones).
///
/// Delivery follows the core `Emitter`'s model with a simpler owner rule: at most one thread drains at a time
/// (the `.draining` phase); a signal from any other thread, or from inside a callout, only updates the queue or the demand, and
/// the draining thread picks it up before it gives up draining, in the same critical section in which it finds
/// nothing left, so no signal is lost and no thread waits for another's callout.
///
/// ```swift
/// let conduit = ShareReplayConduit(downstream: subscriber, id: 3, replay: snapshot, limit: 1, onCancel: { ... })
/// conduit.start()                 // receive(subscription:), then whatever demand allows
/// conduit.push(value)             // any thread (the receiver's entry: `enqueue(_:)`)
/// ```
///
/// **Demand:** values are delivered only within the subscriber's demand; beyond it, the newest `limit` values wait
/// (older ones are dropped, as a later subscriber would not see them either). The completion is delivered after the
/// waiting values.
/// **Thread safety:** every method may be called from any thread; no lock is held during a callout.
// Performance: `@usableFromInline` with `@inlinable` members, so that the client module specializes the per-value
// path (`push`, `drain`) for its subscriber type, reached through the receiver's entry closures formed in `init`.
@usableFromInline
final class ShareReplayConduit<Downstream: Subscriber>: ShareReplayReceiver<Downstream.Input, Downstream.Failure>,
    Subscription, CustomStringConvertible, @unchecked Sendable
{
    @usableFromInline typealias Output = Downstream.Input
    @usableFromInline typealias Failure = Downstream.Failure

    /// Who delivers: nobody before `start()` (values and the completion only queue), then nobody at the moment
    /// (`idle`) or the one thread that drains.
    @usableFromInline
    enum Delivery {
        case unstarted
        case idle
        case draining
    }

    @usableFromInline
    struct State {
        /// Nil once cancelled or completed.
        @usableFromInline var downstream: Downstream?
        @usableFromInline var queue: RingBuffer<Output>
        @usableFromInline var demand = Subscribers.Demand.none
        /// The completion received, waiting behind the queued values.
        @usableFromInline var completion: Subscribers.Completion<Failure>?
        @usableFromInline var delivery = Delivery.unstarted
        @usableFromInline let limit: Int

        @inlinable
        init(downstream: Downstream, queue: RingBuffer<Output>, limit: Int) {
            self.downstream = downstream
            self.queue = queue
            self.limit = limit
        }

        /// Whether the conduit takes no more values or completion: it has one already, or it was cancelled or
        /// completed.
        @inlinable
        var isClosed: Bool {
            completion != nil || downstream == nil
        }

        @inlinable
        var hasDeliverable: Bool {
            downstream != nil && ((demand > .none && !queue.isEmpty) || (queue.isEmpty && completion != nil))
        }

        /// Claims the drain if there is something to deliver and nobody drains.
        @inlinable
        mutating func claimDrain() -> Bool {
            guard case .idle = delivery, hasDeliverable else { return false }
            delivery = .draining
            return true
        }

        /// The draining thread gives up draining.
        @inlinable
        mutating func endDrain() {
            assert(delivery == .draining, "share(replay:): a conduit ended a drain nobody had claimed")
            delivery = .idle
        }

        /// Keeps at most `limit` values beyond demand: returns the dropped oldest value, if any.
        @inlinable
        mutating func trim() -> Output? {
            let covered = demand.max ?? Int.max
            guard queue.count - Swift.min(queue.count, covered) > limit else { return nil }
            return queue.popFirst()
        }
    }

    @usableFromInline
    enum Next {
        case value(Downstream, Output)
        case completion(Downstream, Subscribers.Completion<Failure>)
        case idle
    }

    @usableFromInline let state: LockedBox<State>
    @usableFromInline let onCancel: () -> Void

    /// `id` is the subscriber's number in the share; `replay` is the share's buffer at subscription time;
    /// `onCancel` tells the share that this subscriber left.
    @inlinable
    init(
        downstream: Downstream, id: Int, replay: RingBuffer<Output>, limit: Int, onCancel: @escaping () -> Void
    ) {
        state = LockedBox(tracking: State(downstream: downstream, queue: replay, limit: limit))
        self.onCancel = onCancel
        super.init(
            id: id,
            push: { RawReference.downcast($0, to: ShareReplayConduit.self).enqueue($1) },
            finish: { RawReference.downcast($0, to: ShareReplayConduit.self).enqueue(completion: $1) })
    }

    /// Delivers `receive(subscription:)`, then what demand allows. Call once.
    @inlinable
    func start() {
        let downstream = state.withCriticalSection { state -> Downstream? in
            assert(state.delivery == .unstarted, "share(replay:): a conduit started twice")
            guard let downstream = state.downstream else {
                state.delivery = .idle
                return nil
            }
            state.delivery = .draining
            return downstream
        }
        guard let downstream else { return }
        CalloutCheck.assertNoLockHeld("share(replay:) delivering its subscription")
        downstream.receive(subscription: self)
        drain(returned: .none)
    }

    @inlinable
    func enqueue(_ value: Output) {
        let (drain, dropped) = state.withCriticalSection { state -> (Bool, Output?) in
            guard !state.isClosed else { return (false, value) }
            state.queue.append(value)
            let dropped = state.trim()
            return (state.claimDrain(), dropped)
        }
        // A dropped value may hold the last reference to a user object: released here, after unlocking.
        withExtendedLifetime(dropped) {}
        if drain { self.drain(returned: .none) }
    }

    @inlinable
    func enqueue(completion: Subscribers.Completion<Failure>) {
        let drain = state.withCriticalSection { state -> Bool in
            guard !state.isClosed else { return false }
            state.completion = completion
            return state.claimDrain()
        }
        if drain { self.drain(returned: .none) }
    }

    @inlinable
    func request(_ demand: Subscribers.Demand) {
        demand.preconditionNonZero()
        let drain = state.withCriticalSection { state -> Bool in
            guard state.downstream != nil else { return false }
            state.demand += demand
            return state.claimDrain()
        }
        if drain { self.drain(returned: .none) }
    }

    @inlinable
    func cancel() {
        let released = state.withCriticalSection { state -> (Downstream?, RingBuffer<Output>)? in
            guard let downstream = state.downstream else { return nil }
            state.downstream = nil
            state.completion = nil
            return (downstream, state.queue.takeAll())
        }
        guard released != nil else { return }
        withExtendedLifetime(released) {}
        CalloutCheck.assertNoLockHeld("share(replay:) telling the share a subscriber left")
        onCancel()
    }

    // The drain loop: one lock round-trip per delivered value, folding in the demand the previous delivery returned.
    // Requests made from inside a callout only add demand; this loop delivers what they allow.
    @inlinable
    func drain(returned: Subscribers.Demand) {
        var more = returned
        while true {
            let next = state.withCriticalSection { state -> Next in
                state.demand += more
                guard let downstream = state.downstream else {
                    state.endDrain()
                    return .idle
                }
                if state.demand > .none, let value = state.queue.popFirst() {
                    state.demand -= 1
                    return .value(downstream, value)
                }
                if state.queue.isEmpty, let completion = state.completion {
                    state.completion = nil
                    state.downstream = nil
                    state.endDrain()
                    return .completion(downstream, completion)
                }
                state.endDrain()
                return .idle
            }
            switch next {
            case .value(let downstream, let value):
                CalloutCheck.assertNoLockHeld("share(replay:) delivering a value")
                more = downstream.receive(value)
            case .completion(let downstream, let completion):
                CalloutCheck.assertNoLockHeld("share(replay:) delivering the completion")
                downstream.receive(completion: completion)
                return
            case .idle:
                return
            }
        }
    }

    @usableFromInline
    var description: String { "ShareReplay" }
}
