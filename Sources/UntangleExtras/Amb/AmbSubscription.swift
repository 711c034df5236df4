import Untangle
import UntangleSync

/// The subscription of an amb: a ``FanIn`` with one inner per source; the first source to send anything (a value or
/// a completion) wins and the others are cancelled. The winner's signals reach the downstream through the fan-in's
/// emitter, since a loser's signal may race with the winner's on another thread.
///
/// **Demand:** see ``AmbStateMachine``.
/// **Thread safety:** sources may deliver on any threads; `request`/`cancel` may be called from any thread. No lock
/// is held while calling a source or the downstream.
final class AmbSubscription<Downstream: Subscriber>: Subscription, FanInParent, CustomStringConvertible,
    @unchecked Sendable
{
    typealias Output = Downstream.Input
    typealias Failure = Downstream.Failure

    private let fanIn: FanIn<Downstream, AmbStateMachine>

    init(downstream: Downstream, count: Int) {
        fanIn = FanIn(downstream: downstream, machine: AmbStateMachine(count: count))
    }

    func start(_ sources: [AnyPublisher<Output, Failure>]) {
        fanIn.emitter.start(subscription: self)
        guard !sources.isEmpty else {
            _ = fanIn.decide { $0.terminate() }
            fanIn.perform(FanInEffects(completion: .finished))
            return
        }
        for (index, source) in sources.enumerated() {
            if fanIn.decide({ $0.isTerminated || ($0.winner != nil) }) { break }
            source.subscribe(FanInInner(parent: self, id: index))
        }
    }

    func inner(_ index: Int, subscribed subscription: Subscription) {
        fanIn.inner(index, subscribed: subscription)
    }

    func inner(_ index: Int, received value: Output) -> Subscribers.Demand {
        let (deliver, losers) = fanIn.decide { $0.signal(from: index) }
        fanIn.perform(FanInEffects(cancel: losers))
        if deliver {
            fanIn.emitter.offer(value)
        }
        return .none
    }

    func inner(_ index: Int, completed completion: Subscribers.Completion<Failure>) {
        let effects = fanIn.decide { machine -> FanInEffects<Failure> in
            let (deliver, losers) = machine.signal(from: index)
            guard deliver, machine.terminate(completed: index) != nil else { return FanInEffects(cancel: losers) }
            return FanInEffects(cancel: losers, completion: completion)
        }
        fanIn.perform(effects)
    }

    func request(_ demand: Subscribers.Demand) {
        fanIn.request(demand)
    }

    func cancel() {
        fanIn.cancel()
    }

    var description: String { "Amb" }
}
