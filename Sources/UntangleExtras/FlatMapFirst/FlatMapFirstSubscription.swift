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
    FanInOwner, FanInParent, CustomStringConvertible, @unchecked Sendable
where P.Output == Downstream.Input, P.Failure == Downstream.Failure, Upstream.Failure == P.Failure {
    typealias Input = Upstream.Output
    typealias Failure = Upstream.Failure

    let fanIn: FanIn<Downstream, FlatMapFirstStateMachine>
    // The user's transform, let go once the operator has ended (completion or cancel): a finished subscription that
    // its subscriber still holds keeps nothing the closure captured (RxSwift 9de36a77). Read under the lock, called
    // and released after it (its release may run user code).
    private let transform: LockedBox<((Upstream.Output) -> P)?>

    init(downstream: Downstream, transform: @escaping (Upstream.Output) -> P) {
        fanIn = FanIn(downstream: downstream, machine: FlatMapFirstStateMachine(), demand: .forwarded)
        self.transform = LockedBox(tracking: transform)
    }

    /// Lets the transform go if the operator has ended, after the lock is released.
    private func releaseTransformIfEnded() {
        guard fanIn.withCriticalSection({ $0.isEnded }) else { return }
        let released = transform.withCriticalSection { transform -> ((Upstream.Output) -> P)? in
            defer { transform = nil }
            return transform
        }
        withExtendedLifetime(released) {}
    }

    // MARK: Upstream

    func receive(subscription: Subscription) {
        guard fanIn.withCriticalSection({ $0.upstreamSubscribed(subscription) }) else {
            fanIn.perform(FanInEffects(cancelOne: subscription))
            return
        }
        fanIn.start(self)
        if !fanIn.withCriticalSection({ $0.isEnded }) {
            fanIn.perform(FanInEffects(requestOne: subscription, demand: .unlimited))
        }
    }

    // The fan-in decides first: a value arriving while an inner runs (flatMapFirst's usual case) is dropped with one
    // lock round trip. The transform's box is read only for a value that starts an inner; if a cancel ended the
    // operator in between, its box is empty and the machine has ended too, so nothing is subscribed.
    func receive(_ input: Upstream.Output) -> Subscribers.Demand {
        guard let id = fanIn.withCriticalSection({ $0.upstreamSent() }),
            let transform = transform.withCriticalSection({ $0 })
        else { return .none }
        fanIn.subscribe(transform(input), FanInInner(parent: self, id: id))
        return .none
    }

    func receive(completion: Subscribers.Completion<Failure>) {
        fanIn.perform(fanIn.withCriticalSection { $0.upstreamCompleted(completion) })
        releaseTransformIfEnded()
    }

    // MARK: Inners

    func inner(_ id: Int, subscribed subscription: Subscription) {
        fanIn.inner(id, subscribed: subscription)
    }

    func inner(_ id: Int, received value: P.Output) -> Subscribers.Demand {
        fanIn.offer(value, from: id)
    }

    func inner(_ id: Int, completed completion: Subscribers.Completion<P.Failure>) {
        fanIn.complete(id, completion)
        releaseTransformIfEnded()
    }

    // MARK: Downstream

    func cancel() {
        fanIn.cancel()
        releaseTransformIfEnded()
    }

    var description: String { "FlatMapFirst" }
}
