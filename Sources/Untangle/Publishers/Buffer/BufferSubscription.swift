import UntangleSync

/// The subscription of a buffer: the subscriber it gives the upstream and the subscription it gives the downstream.
/// Queued values are kept by ``BufferStateMachine`` (bounded by `size`); values the downstream has demand for are
/// handed to one ``Emitter``, which serializes delivery between the upstream's thread and the threads that request.
///
/// **Demand:** see ``BufferStateMachine``.
/// **Thread safety:** the upstream may deliver on one thread while the downstream requests or cancels on others.
/// No lock is held while calling the upstream, the `customError` closure or the downstream.
final class BufferSubscription<Upstream: Publisher, Downstream: Subscriber>: Subscriber, Subscription,
    CustomStringConvertible, @unchecked Sendable
where Upstream.Output == Downstream.Input, Upstream.Failure == Downstream.Failure {
    typealias Input = Upstream.Output
    typealias Failure = Upstream.Failure

    private let state: LockedBox<BufferStateMachine<Upstream.Output, Upstream.Failure>>
    // Set once in init (the relay needs `self`) before the subscription is visible to other threads.
    private var emitter: Emitter<DemandRelay<Downstream>>!

    init(
        downstream: Downstream, size: Int, prefetch: Publishers.PrefetchStrategy,
        whenFull: Publishers.BufferingStrategy<Upstream.Failure>
    ) {
        state = LockedBox(tracking: BufferStateMachine(size: size, prefetch: prefetch, whenFull: whenFull))
        emitter = Emitter(
            downstream: DemandRelay(downstream: downstream) { [weak self] in self?.downstreamReturned($0) },
            policy: .unbounded)
    }

    // MARK: Upstream

    func receive(subscription: Subscription) {
        guard let initial = state.withCriticalSection({ $0.subscribed(subscription) }) else {
            CalloutCheck.assertNoLockHeld("buffer cancelling a second upstream subscription")
            subscription.cancel()
            return
        }
        emitter.start(subscription: self)
        if initial > .none, state.withCriticalSection({ !$0.isTerminated }) {
            CalloutCheck.assertNoLockHeld("buffer prefetching from its upstream")
            subscription.request(initial)
        }
    }

    func receive(_ input: Upstream.Output) -> Subscribers.Demand {
        switch state.withCriticalSection({ $0.receive(input) }) {
        case .deliver(let more):
            emitter.offer(input)
            return more
        case .kept(let dropped):
            withExtendedLifetime(dropped) {}
            return .none
        case .overflow(let makeError, let upstream, let discarded):
            withExtendedLifetime(discarded) {}
            CalloutCheck.assertNoLockHeld("buffer cancelling its upstream after an overflow")
            upstream?.cancel()
            emitter.complete(.failure(makeError()), order: .afterDemandedValues)
            return .none
        case .ignored:
            return .none
        }
    }

    func receive(completion: Subscribers.Completion<Upstream.Failure>) {
        switch completion {
        case .finished:
            if state.withCriticalSection({ $0.finished() }) {
                move()
            }
        case .failure:
            let (_, discarded) = state.withCriticalSection { $0.terminate() }
            withExtendedLifetime(discarded) {}
            emitter.complete(completion, order: .afterDemandedValues)
        }
    }

    // MARK: Downstream

    func request(_ demand: Subscribers.Demand) {
        demand.preconditionNonZero()
        emitter.request(demand)
        downstreamReturned(demand)
    }

    func downstreamReturned(_ demand: Subscribers.Demand) {
        let (mustMove, forwardTo) = state.withCriticalSection { $0.request(demand) }
        if let forwardTo {
            CalloutCheck.assertNoLockHeld("buffer forwarding a request upstream")
            forwardTo.request(demand)
        }
        if mustMove {
            move()
        }
    }

    func cancel() {
        emitter.cancel()
        let (upstream, discarded) = state.withCriticalSection { $0.terminate() }
        withExtendedLifetime(discarded) {}
        CalloutCheck.assertNoLockHeld("buffer cancelling its upstream")
        upstream?.cancel()
    }

    // The mover's loop: one thread at a time hands queued values to the emitter, in order. A request made from
    // inside a delivery (on this thread or another) only adds demand; this loop picks it up.
    private func move() {
        while true {
            switch state.withCriticalSection({ $0.nextBatch() }) {
            case .values(let values, let upstreamDemand, let upstream):
                for value in values {
                    emitter.offer(value)
                }
                if let upstream, upstreamDemand > .none {
                    CalloutCheck.assertNoLockHeld("buffer refilling from its upstream")
                    upstream.request(upstreamDemand)
                }
            case .finish:
                emitter.complete(.finished, order: .afterQueuedValues)
                return
            case .idle:
                return
            }
        }
    }

    var description: String { "Buffer" }
}
