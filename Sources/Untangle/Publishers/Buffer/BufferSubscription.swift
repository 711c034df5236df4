import UntangleSync

/// The subscription of a buffer: the subscriber it gives the upstream and the subscription it gives the downstream.
/// Queued values, demand and the mover are kept by ``BufferStateMachine``; the mover delivers straight to the
/// downstream, one value per critical section.
///
/// **Demand:** see ``BufferStateMachine``.
/// **Thread safety:** the upstream may deliver on one thread while the downstream requests or cancels on others;
/// one thread at a time delivers. No lock is held while calling the upstream, the `customError` closure or the
/// downstream.
//
// Performance: `@usableFromInline` with `@inlinable` members (and `Buffer.receive(subscriber:)` `@inlinable`), with the
// state machine, so the client module specializes the buffer for its values and downstream (`buffer(…).values` runs
// in the caller's module as `values` does). Compiled once here, every value went through unspecialized generic code
// and runtime metadata lookups.
@usableFromInline
final class BufferSubscription<Upstream: Publisher, Downstream: Subscriber>: Subscriber, Subscription,
    CustomStringConvertible, CustomReflectable, CustomPlaygroundDisplayConvertible, @unchecked Sendable
where Upstream.Output == Downstream.Input, Upstream.Failure == Downstream.Failure {
    // @unchecked Sendable: all mutable state lives in `state`, touched only in critical sections.
    @usableFromInline typealias Input = Upstream.Output
    @usableFromInline typealias Failure = Upstream.Failure

    @usableFromInline let state: LockedBox<BufferStateMachine<Input, Failure, Downstream>>

    @inlinable
    init(
        downstream: Downstream, size: Int, prefetch: Publishers.PrefetchStrategy,
        whenFull: Publishers.BufferingStrategy<Failure>
    ) {
        state = LockedBox(
            tracking: BufferStateMachine(downstream: downstream, size: size, prefetch: prefetch, whenFull: whenFull))
    }

    // MARK: Upstream

    // As Apple's: the upstream is asked for its first demand before the downstream receives its subscription. This
    // thread holds the mover until then, so values the upstream sends from inside that request are only queued.
    // During the subscription callout, a request the downstream makes there (on this thread) moves nested and gets
    // what is queued inside that request, as Apple's does (see `BufferStateMachine.claimMover(on:)`); what other
    // threads add meanwhile is moved on once the callout returned.
    @inlinable
    func receive(subscription: Subscription) {
        let (admission, downstream) = state.withCriticalSection { $0.subscribed(subscription) }
        // Apple's asks for `.max(0)` too (`.keepFull` with size 0); that request is left out here (the admission
        // requests nothing for `.none`), since an upstream may trap on it.
        admission.perform(on: subscription, operator: "buffer")
        guard let downstream else { return }
        let thread = ThreadID.current
        state.withCriticalSection { $0.startSubscriptionCallout(on: thread) }
        CalloutCheck.assertNoLockHeld("buffer handing its downstream the subscription")
        downstream.receive(subscription: self)
        state.withCriticalSection { $0.subscriptionCalloutReturned() }
        refill(subscription, move())
    }

    @inlinable
    func receive(_ input: Input) -> Subscribers.Demand {
        switch state.withCriticalSection({ $0.receive(input, on: ThreadID.current) }) {
        case .queued(let dropped, let mustMove):
            withExtendedLifetime(dropped) {}
            return mustMove ? move() : .none
        case .overflow(let makeError, let upstream):
            CalloutCheck.assertNoLockHeld("buffer calling customError")
            let error = makeError()
            let mustMove = state.withCriticalSection { $0.overflowed(with: error) }
            CalloutCheck.assertNoLockHeld("buffer cancelling its upstream after an overflow")
            upstream.cancel()
            if mustMove {
                _ = move()
            }
            return .none
        case .ignored:
            withExtendedLifetime(input) {}
            return .none
        }
    }

    @inlinable
    func receive(completion: Subscribers.Completion<Failure>) {
        if state.withCriticalSection({ $0.receiveCompletion(completion, on: ThreadID.current) }) {
            _ = move()
        }
    }

    // MARK: Downstream

    @inlinable
    func request(_ demand: Subscribers.Demand) {
        guard let (subscription, mustMove) = state.withCriticalSection({ $0.request(demand, on: ThreadID.current) }),
            mustMove
        else {
            return
        }
        refill(subscription, move())
    }

    @inlinable
    func cancel() {
        guard let (upstream, discarded, downstream) = state.withCriticalSection({ $0.cancel() }) else { return }
        withExtendedLifetime((discarded, downstream)) {}
        CalloutCheck.assertNoLockHeld("buffer cancelling its upstream")
        upstream.cancel()
    }

    @inlinable
    func refill(_ subscription: Subscription, _ demand: Subscribers.Demand) {
        guard demand > .none else { return }
        CalloutCheck.assertNoLockHeld("buffer refilling from its upstream")
        subscription.request(demand)
    }

    // The mover's loop: one thread at a time hands queued values to the downstream, in order, one per critical
    // section (so a `cancel()` that returned stops it before the next value). A request made from inside a delivery
    // (on this thread or another) only adds demand; this loop picks it up. Nested inside the subscription callout
    // (a request made in `receive(subscription:)`), it stops as soon as nothing is deliverable and hands the mover
    // back to the callout. Returns the refill demand (`.keepFull`) for the caller to pass upstream: returned from
    // `receive(_:)`, requested otherwise.
    @inlinable
    func move() -> Subscribers.Demand {
        var returned = Subscribers.Demand.none
        var refill = Subscribers.Demand.none
        while true {
            switch state.withCriticalSection({ $0.nextStep(returned: returned) }) {
            case .value(let downstream, let value, let more):
                refill += more
                CalloutCheck.assertNoLockHeld("buffer delivering a value")
                returned = downstream.receive(value)
            case .complete(let downstream, let completion, let discarded):
                withExtendedLifetime(discarded) {}
                CalloutCheck.assertNoLockHeld("buffer delivering its completion")
                downstream.receive(completion: completion)
                return refill
            case .stop:
                return refill
            }
        }
    }

    @usableFromInline var description: String { "Buffer" }

    @usableFromInline var playgroundDescription: Any { description }

    // The children Apple's buffer shows: the queued values, the upstream's phase, the unused demand and the
    // completion waiting behind the queue. Copied under the lock, described by the caller.
    @usableFromInline var customMirror: Mirror {
        let (values, upstream, demand, terminal) = state.withCriticalSection { machine in
            var copy = machine.buffer.unsharedCopy()
            var values: [Input] = []
            while let value = copy.popFirst() {
                values.append(value)
            }
            return (values, machine.upstream, machine.demand, machine.terminal)
        }
        var completion: Subscribers.Completion<Failure>?
        switch terminal {
        case .finished?: completion = .finished
        case .failure(let error)?: completion = .failure(error)
        case .overflowing?, nil: completion = nil
        }
        let children: [Mirror.Child] = [
            ("values", values), ("state", upstream), ("downstreamDemand", demand), ("terminal", completion as Any),
        ]
        return Mirror(self, children: children)
    }
}
