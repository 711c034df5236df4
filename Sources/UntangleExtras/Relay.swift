import Untangle
import UntangleSync

/// A subject that cannot fail or finish: it only ever accepts values. RxRelay's `Relay`, in Combine's style.
///
/// ```swift
/// let taps = PassthroughRelay<Int>()
/// let cancellable = taps.sink { print($0) }
/// taps.accept(1)                              // prints 1
/// let connection = [2, 3].publisher.subscribe(taps)   // prints 2, 3; the relay does not finish
/// ```
///
/// **Demand:** as the conforming type documents (per subscriber).
/// **Thread safety:** conforming types accept values and subscribers from any thread.
public protocol Relay: Publisher where Failure == Never {
    /// Sends a value to the relay's subscribers.
    func accept(_ value: Output)

    /// Forwards every value of `publisher` to this relay; its completion is ignored (a relay never finishes).
    /// Cancel the returned cancellable to stop forwarding.
    func subscribe<P: Publisher>(_ publisher: P) -> AnyCancellable where P.Output == Output, P.Failure == Never
}

extension Relay {
    /// Forwards every value of `publisher` to this relay, ignoring its completion.
    ///
    /// ```swift
    /// let connection = relay.subscribe(Just(1))
    /// ```
    ///
    /// **Demand:** requests `.unlimited` from `publisher`.
    /// **Thread safety:** the returned cancellable may be cancelled from any thread; it releases the relay.
    public func subscribe<P: Publisher>(_ publisher: P) -> AnyCancellable
    where P.Output == Output, P.Failure == Never {
        let forwarder = RelayForwarder(relay: self)
        publisher.subscribe(forwarder)
        return AnyCancellable(forwarder)
    }

    /// Forwards every value of this relay to `relay` (the direction of `publisher.subscribe(relay)` and of RxSwift's
    /// `bind(to:)`).
    ///
    /// ```swift
    /// let connection = input.subscribe(output)   // input.accept(1) reaches output's subscribers
    /// ```
    ///
    /// **Demand:** requests `.unlimited` from this relay.
    /// **Thread safety:** the returned cancellable may be cancelled from any thread; cancelling stops the
    /// forwarding and releases `relay`.
    //
    // Without this overload `input.subscribe(output)` would pick the one above (the more specific protocol's
    // extension) and forward the other way, from `output` into `input` (CombineExt shipped that bug, efa607b).
    public func subscribe<R: Relay>(_ relay: R) -> AnyCancellable where R.Output == Output {
        let forwarder = RelayForwarder(relay: relay)
        subscribe(forwarder)
        return AnyCancellable(forwarder)
    }
}

extension Publisher where Failure == Never {
    /// Forwards every value of this publisher to `relay`; the completion is ignored (a relay never finishes).
    ///
    /// ```swift
    /// let connection = [1, 2, 3].publisher.subscribe(relay)
    /// ```
    ///
    /// **Demand:** requests `.unlimited` from this publisher.
    /// **Thread safety:** the returned cancellable may be cancelled from any thread; cancelling stops the
    /// forwarding and releases the relay.
    public func subscribe<R: Relay>(_ relay: R) -> AnyCancellable where R.Output == Output {
        relay.subscribe(self)
    }
}

/// Subscribes a relay to a publisher: holds the relay strongly until the publisher completes or the connection is
/// cancelled (like Combine's `subscribe(_:)` for a subject).
private final class RelayForwarder<Target: Relay>: Subscriber, Cancellable, CustomStringConvertible,
    @unchecked Sendable
{
    typealias Input = Target.Output
    typealias Failure = Never

    private struct State {
        var relay: Target?
        var upstream: Subscription?
        var ended = false
    }

    private let state: LockedBox<State>

    init(relay: Target) {
        state = LockedBox(tracking: State(relay: relay))
    }

    func receive(subscription: Subscription) {
        let accepted = state.withCriticalSection { state -> Bool in
            guard !state.ended, state.upstream == nil else { return false }
            state.upstream = subscription
            return true
        }
        CalloutCheck.assertNoLockHeld("a relay connection requesting upstream")
        if accepted {
            subscription.request(.unlimited)
        } else {
            subscription.cancel()
        }
    }

    func receive(_ input: Target.Output) -> Subscribers.Demand {
        let relay = state.withCriticalSection { $0.relay }
        CalloutCheck.assertNoLockHeld("a relay connection forwarding a value")
        relay?.accept(input)
        return .none
    }

    func receive(completion: Subscribers.Completion<Never>) {
        let released = state.withCriticalSection { state -> State in
            defer { state = State(relay: nil, upstream: nil, ended: true) }
            return state
        }
        withExtendedLifetime(released) {}
    }

    func cancel() {
        let released = state.withCriticalSection { state -> State in
            defer { state = State(relay: nil, upstream: nil, ended: true) }
            return state
        }
        CalloutCheck.assertNoLockHeld("a relay connection cancelling upstream")
        released.upstream?.cancel()
    }

    var description: String { "RelayForwarder" }
}
