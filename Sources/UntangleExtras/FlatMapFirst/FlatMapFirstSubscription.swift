import Untangle
import UntangleSync

/// The subscription of a flatMapFirst: the subscriber it gives the upstream, the subscription it gives the
/// downstream, and a ``FanIn`` whose inners are the inner publishers (one active at a time). Inner values go
/// through the fan-in's emitter.
///
/// **Demand:** see ``FlatMapFirstStateMachine``.
/// **Thread safety:** the upstream and the inners may deliver on any threads; `request`/`cancel` may be called from
/// any thread. No lock is held while calling a publisher, `transform` or the downstream.
final class FlatMapFirstSubscription<Upstream: Publisher, P: Publisher, Downstream: Subscriber>: Subscriber,
    Subscription, FanInParent, CustomStringConvertible, @unchecked Sendable
where P.Output == Downstream.Input, P.Failure == Downstream.Failure, Upstream.Failure == P.Failure {
    typealias Input = Upstream.Output
    typealias Failure = Upstream.Failure

    private let fanIn: FanIn<Downstream, FlatMapFirstStateMachine>
    private let transform: (Upstream.Output) -> P

    init(downstream: Downstream, transform: @escaping (Upstream.Output) -> P) {
        fanIn = FanIn(downstream: downstream, machine: FlatMapFirstStateMachine())
        self.transform = transform
    }

    // MARK: Upstream

    func receive(subscription: Subscription) {
        guard fanIn.decide({ $0.upstreamSubscribed(subscription) }) else {
            fanIn.perform(FanInEffects(cancel: [subscription]))
            return
        }
        fanIn.emitter.start(subscription: self)
        if fanIn.decide({ !$0.isTerminated }) {
            fanIn.perform(FanInEffects(request: [subscription], demand: .unlimited))
        }
    }

    func receive(_ input: Upstream.Output) -> Subscribers.Demand {
        guard let id = fanIn.decide({ $0.upstreamSent() }) else { return .none }
        CalloutCheck.assertNoLockHeld("flatMapFirst calling transform")
        transform(input).subscribe(FanInInner(parent: self, id: id))
        return .none
    }

    func receive(completion: Subscribers.Completion<Failure>) {
        fanIn.complete(
            completion, finished: { ($0.upstreamFinished(), nil) },
            failed: { $0.end(failedInner: nil, upstreamFailed: true) })
    }

    // MARK: Downstream

    func request(_ demand: Subscribers.Demand) {
        fanIn.request(demand)
    }

    func cancel() {
        fanIn.cancel()
    }

    // MARK: Inners

    func inner(_ id: Int, subscribed subscription: Subscription) {
        fanIn.inner(id, subscribed: subscription)
    }

    func inner(_ id: Int, received value: P.Output) -> Subscribers.Demand {
        fanIn.offer(value, ifAdmitted: { $0.innerSent(id) })
    }

    func inner(_ id: Int, completed completion: Subscribers.Completion<P.Failure>) {
        fanIn.complete(
            completion,
            finished: { machine in
                let (finish, released) = machine.innerFinished(id)
                return (finish, released)
            },
            failed: { $0.end(failedInner: id, upstreamFailed: false) })
    }

    var description: String { "FlatMapFirst" }
}
