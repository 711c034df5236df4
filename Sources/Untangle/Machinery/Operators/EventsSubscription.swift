import UntangleSync

/// The closures an ``EventsSubscription`` calls, one per kind of event (nil: nothing to do).
struct EventHandlers<Output, Failure: Error> {
    var subscription: ((Subscription) -> Void)?
    var output: ((Output) -> Void)?
    var completion: ((Subscribers.Completion<Failure>) -> Void)?
    var cancel: (() -> Void)?
    /// A request made by the downstream through the subscription.
    var request: ((Subscribers.Demand) -> Void)?
    /// Demand the downstream returned from `receive(_:)` (only when greater than zero).
    var returnedDemand: ((Subscribers.Demand) -> Void)?
}

/// Observes every signal of one subscription (a subscriber upstream, a subscription downstream) for `handleEvents`,
/// `print` and `breakpoint`.
///
/// **Demand:** passed through unchanged.
/// **Thread safety:** handlers run with no lock held; `cancel` handler at most once.
final class EventsSubscription<Downstream: Subscriber>: Subscriber, Subscription, CustomStringConvertible,
    @unchecked Sendable
{
    typealias Input = Downstream.Input
    typealias Failure = Downstream.Failure

    private struct State {
        var upstream: Subscription?
        var downstream: Downstream?
        var cancelled = false
    }

    private let handlers: EventHandlers<Downstream.Input, Downstream.Failure>
    private let state: LockedBox<State>
    private let name: String

    init(downstream: Downstream, name: String, handlers: EventHandlers<Downstream.Input, Downstream.Failure>) {
        self.handlers = handlers
        self.name = name
        state = LockedBox(tracking: State(downstream: downstream))
    }

    func receive(subscription: Subscription) {
        let downstream = state.withCriticalSection { state -> Downstream? in
            guard state.upstream == nil, !state.cancelled else { return nil }
            state.upstream = subscription
            return state.downstream
        }
        guard let downstream else {
            subscription.cancel()
            return
        }
        handlers.subscription?(subscription)
        downstream.receive(subscription: self)
    }

    func receive(_ input: Downstream.Input) -> Subscribers.Demand {
        guard let downstream = state.withCriticalSection({ $0.downstream }) else { return .none }
        handlers.output?(input)
        let more = downstream.receive(input)
        if more > .none {
            handlers.returnedDemand?(more)
        }
        return more
    }

    func receive(completion: Subscribers.Completion<Downstream.Failure>) {
        let downstream = state.withCriticalSection { state -> Downstream? in
            defer {
                state.downstream = nil
                state.upstream = nil
            }
            return state.downstream
        }
        guard let downstream else { return }
        handlers.completion?(completion)
        downstream.receive(completion: completion)
    }

    func request(_ demand: Subscribers.Demand) {
        demand.preconditionNonZero()
        guard let upstream = state.withCriticalSection({ $0.cancelled ? nil : $0.upstream }) else { return }
        handlers.request?(demand)
        upstream.request(demand)
    }

    func cancel() {
        let (upstream, downstream, first) = state.withCriticalSection { state -> (Subscription?, Downstream?, Bool) in
            defer {
                state.cancelled = true
                state.upstream = nil
                state.downstream = nil
            }
            return (state.upstream, state.downstream, !state.cancelled && state.downstream != nil)
        }
        withExtendedLifetime(downstream) {}
        if first {
            handlers.cancel?()
        }
        upstream?.cancel()
    }

    var description: String { name }
}
