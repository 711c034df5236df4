import Untangle
import UntangleSync

/// The subscription of an amb: one inner subscriber per source; the first source to send anything (a value or a
/// completion) wins and the others are cancelled. The winner's signals reach the downstream through one `Emitter`,
/// since a loser's signal may race with the winner's on another thread.
///
/// **Demand:** see ``AmbStateMachine``.
/// **Thread safety:** sources may deliver on any threads; `request`/`cancel` may be called from any thread. No lock
/// is held while calling a source or the downstream.
final class AmbSubscription<Downstream: Subscriber>: Subscription, CustomStringConvertible, @unchecked Sendable {
    typealias Output = Downstream.Input
    typealias Failure = Downstream.Failure

    private let state: LockedBox<AmbStateMachine>
    private let emitter: Emitter<DemandRelay<Downstream>>

    init(downstream: Downstream, count: Int) {
        let state = LockedBox(tracking: AmbStateMachine(count: count))
        self.state = state
        emitter = Emitter(
            downstream: DemandRelay(downstream: downstream) { more in
                AmbSubscription.forward(more, state: state)
            },
            policy: .unbounded)
    }

    private static func forward(_ demand: Subscribers.Demand, state: LockedBox<AmbStateMachine>) {
        let subscriptions = state.withCriticalSection { $0.request(demand) }
        CalloutCheck.assertNoLockHeld("amb requesting from its sources")
        for subscription in subscriptions {
            subscription.request(demand)
        }
    }

    func start(_ sources: [AnyPublisher<Output, Failure>]) {
        emitter.start(subscription: self)
        guard !sources.isEmpty else {
            _ = state.withCriticalSection { $0.terminate() }
            emitter.complete(.finished, order: .afterQueuedValues)
            return
        }
        for (index, source) in sources.enumerated() {
            if state.withCriticalSection({ $0.isTerminated || ($0.winner != nil) }) { break }
            source.subscribe(Inner(parent: self, index: index))
        }
    }

    private func source(_ index: Int, subscribed subscription: Subscription) {
        guard let demand = state.withCriticalSection({ $0.subscribed(index, subscription) }) else {
            CalloutCheck.assertNoLockHeld("amb cancelling a losing source")
            subscription.cancel()
            return
        }
        if demand > .none {
            CalloutCheck.assertNoLockHeld("amb requesting from a source")
            subscription.request(demand)
        }
    }

    private func source(_ index: Int, sent value: Output) {
        let (deliver, losers) = state.withCriticalSection { $0.signal(from: index) }
        CalloutCheck.assertNoLockHeld("amb cancelling the losers")
        for loser in losers {
            loser.cancel()
        }
        if deliver {
            emitter.offer(value)
        }
    }

    private func source(_ index: Int, completed completion: Subscribers.Completion<Failure>) {
        let (deliver, losers) = state.withCriticalSection { $0.signal(from: index) }
        CalloutCheck.assertNoLockHeld("amb cancelling the losers")
        for loser in losers {
            loser.cancel()
        }
        guard deliver, state.withCriticalSection({ $0.terminate(completed: index) }) != nil else { return }
        switch completion {
        case .finished: emitter.complete(completion, order: .afterQueuedValues)
        case .failure: emitter.complete(completion, order: .afterDemandedValues)
        }
    }

    func request(_ demand: Subscribers.Demand) {
        demand.preconditionNonZero()
        emitter.request(demand)
        AmbSubscription.forward(demand, state: state)
    }

    func cancel() {
        emitter.cancel()
        let subscriptions = state.withCriticalSection { $0.terminate() }
        CalloutCheck.assertNoLockHeld("amb cancelling its sources")
        for subscription in subscriptions ?? [] {
            subscription.cancel()
        }
    }

    var description: String { "Amb" }

    /// The subscriber given to source `index`.
    private struct Inner: Subscriber, CustomStringConvertible {
        typealias Input = Output
        typealias Failure = Downstream.Failure

        let parent: AmbSubscription
        let index: Int
        let combineIdentifier = CombineIdentifier()

        func receive(subscription: Subscription) {
            parent.source(index, subscribed: subscription)
        }

        func receive(_ input: Output) -> Subscribers.Demand {
            parent.source(index, sent: input)
            return .none
        }

        func receive(completion: Subscribers.Completion<Downstream.Failure>) {
            parent.source(index, completed: completion)
        }

        var description: String { "Amb" }
    }
}
