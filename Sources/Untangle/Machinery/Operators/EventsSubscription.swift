import UntangleSync

/// The closures an ``EventsSubscription`` calls, one per kind of event (nil: nothing to do).
struct EventHandlers<Output, Failure: Error> {
    var subscription: ((Subscription) -> Void)?
    var output: ((Output) -> Void)?
    var completion: ((Subscribers.Completion<Failure>) -> Void)?
    var cancel: (() -> Void)?
    /// A request made by the downstream through the subscription (`.none` included: it is forwarded as it is).
    var request: ((Subscribers.Demand) -> Void)?
    /// The demand the downstream returned from `receive(_:)`, every time (`.none` included).
    var returnedDemand: ((Subscribers.Demand) -> Void)?
}

/// Observes every signal of one subscription (a subscriber upstream, a subscription downstream) for `handleEvents`
/// and `print`, with Combine's timing:
///
/// - a handler runs before the event it observes is acted on (the subscription's handler before the downstream gets
///   it, the request's handler before the request goes upstream);
/// - values and a completion are relayed as the upstream sends them, also before the subscription arrived;
/// - `request` is forwarded only once subscribed; `request(.none)` is tolerated and forwarded;
/// - a second subscription is cancelled.
///
/// With ``HandlersLifetime/untilTermination`` (`handleEvents`) the handlers are dropped when the subscription
/// completes or is cancelled, so each of them has run for the last time; with ``HandlersLifetime/forever`` (`print`)
/// every later event is still observed.
///
/// Unlike Combine, the completion and `cancel()` are final (the threading contract): each drops the downstream, so a
/// signal from an upstream that keeps sending after it completed or was cancelled reaches nobody (`print` still logs
/// it), and a subscription arriving after the cancel is cancelled. (Combine keeps the downstream for the
/// subscription's lifetime, relays such signals, and ignores a cancel made before the subscription arrives.)
///
/// **Demand:** passed through unchanged.
/// **Thread safety:** handlers run with no lock held; the state (phase, downstream, handlers) is behind one lock;
/// the downstream and the handlers are released after unlocking.
final class EventsSubscription<Downstream: Subscriber>: Subscriber, Subscription, CustomStringConvertible,
    CustomReflectable, CustomPlaygroundDisplayConvertible, @unchecked Sendable
{
    typealias Input = Downstream.Input
    typealias Failure = Downstream.Failure
    typealias Handlers = EventHandlers<Downstream.Input, Downstream.Failure>

    /// How long the handlers observe events.
    enum HandlersLifetime {
        /// Until the subscription completes or is cancelled (`handleEvents`).
        case untilTermination
        /// As long as the subscription exists (`print`).
        case forever
    }

    private enum Phase {
        case awaitingSubscription
        case subscribed(Subscription)
        /// The upstream completed: the downstream is gone; a late subscription is cancelled.
        case completed
        /// The downstream cancelled: the downstream is gone.
        case cancelled
    }

    private struct State {
        var phase = Phase.awaitingSubscription
        var downstream: Downstream?
        var handlers: Handlers?
    }

    private let state: LockedBox<State>
    private let name: String
    private let lifetime: HandlersLifetime

    init(downstream: Downstream, name: String, handlers: Handlers, lifetime: HandlersLifetime) {
        self.name = name
        self.lifetime = lifetime
        state = LockedBox(tracking: State(downstream: downstream, handlers: handlers))
    }

    func receive(subscription: Subscription) {
        if let handler = state.withCriticalSection({ $0.handlers?.subscription }) {
            CalloutCheck.assertNoLockHeld("an events operator's subscription handler")
            handler(subscription)
        }
        let downstream = state.withCriticalSection { state -> Downstream? in
            guard case .awaitingSubscription = state.phase, let downstream = state.downstream else { return nil }
            state.phase = .subscribed(subscription)
            return downstream
        }
        CalloutCheck.assertNoLockHeld("an events operator answering its subscription")
        guard let downstream else {
            subscription.cancel()
            return
        }
        downstream.receive(subscription: self)
    }

    // The returned demand's handler is read again once the downstream has returned: a `cancel()` made inside its
    // `receive(_:)` ended the handlers' life (`handleEvents`), and nothing is reported after the cancel handler, as
    // in Combine. (Read before the call, it reported the returned demand after `receiveCancel`; found by the random
    // pipelines' fan-in mode.) The second critical section is taken only when such a handler exists.
    func receive(_ input: Downstream.Input) -> Subscribers.Demand {
        let (downstream, onOutput, observesReturnedDemand) = state.withCriticalSection { state in
            (state.downstream, state.handlers?.output, state.handlers?.returnedDemand != nil)
        }
        CalloutCheck.assertNoLockHeld("an events operator relaying a value")
        onOutput?(input)
        guard let downstream else { return .none }
        let more = downstream.receive(input)
        if observesReturnedDemand, let onReturned = state.withCriticalSection({ $0.handlers?.returnedDemand }) {
            CalloutCheck.assertNoLockHeld("an events operator's returned-demand handler")
            onReturned(more)
        }
        return more
    }

    // The handler is taken in the same critical section that ends the handlers' life (for `handleEvents`), so it
    // runs once even if a misbehaving upstream completes twice at once.
    func receive(completion: Subscribers.Completion<Downstream.Failure>) {
        let (handler, downstream, released) = state.withCriticalSection {
            state -> (((Subscribers.Completion<Failure>) -> Void)?, Downstream?, Handlers?) in
            let handler = state.handlers?.completion
            if state.downstream != nil {
                state.phase = .completed
            }
            return (handler, state.downstream.take(), lifetime == .untilTermination ? state.handlers.take() : nil)
        }
        CalloutCheck.assertNoLockHeld("an events operator relaying a completion")
        handler?(completion)
        withExtendedLifetime(released) {}
        downstream?.receive(completion: completion)
    }

    func request(_ demand: Subscribers.Demand) {
        if let handler = state.withCriticalSection({ $0.handlers?.request }) {
            CalloutCheck.assertNoLockHeld("an events operator's request handler")
            handler(demand)
        }
        let upstream = state.withCriticalSection { state -> Subscription? in
            guard case .subscribed(let upstream) = state.phase else { return nil }
            return upstream
        }
        CalloutCheck.assertNoLockHeld("an events operator forwarding a request")
        upstream?.request(demand)
    }

    // One critical section decides everything: the phase becomes `.cancelled`, the downstream (and, for
    // `handleEvents`, the handlers) are taken out to be released after unlocking, and only the first cancel finds the
    // upstream to cancel. Then, as in Combine, the cancel handler runs before the upstream hears of the cancel; for
    // `handleEvents` it runs once, however many threads cancel at once.
    func cancel() {
        let (handler, upstream, downstream, released) = state.withCriticalSection {
            state -> ((() -> Void)?, Subscription?, Downstream?, Handlers?) in
            let handler = state.handlers?.cancel
            var upstream: Subscription?
            switch state.phase {
            case .subscribed(let subscription): upstream = subscription
            case .cancelled: return (handler, nil, nil, nil)
            case .awaitingSubscription, .completed: break
            }
            state.phase = .cancelled
            let released = lifetime == .untilTermination ? state.handlers.take() : nil
            return (handler, upstream, state.downstream.take(), released)
        }
        CalloutCheck.assertNoLockHeld("an events operator cancelling its upstream")
        handler?()
        withExtendedLifetime((downstream, released)) {}
        upstream?.cancel()
    }

    var description: String { name }
    var customMirror: Mirror { Mirror(self, children: EmptyCollection()) }
    var playgroundDescription: Any { description }
}
