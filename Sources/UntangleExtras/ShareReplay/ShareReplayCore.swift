import Untangle
import UntangleSync

/// The shared state of one `share(replay:)` publisher: its subscribers, the replay buffer, and the connection to
/// the upstream (made by the first subscriber, cancelled when the last one leaves, forgotten when the upstream
/// completes, so that the next subscriber connects again with an empty buffer: RxSwift's `.whileConnected`).
///
/// Each connection has a number; signals of an older connection are ignored, so an upstream that keeps talking
/// after it was cancelled cannot reach the subscribers of the next connection.
///
/// ```swift
/// let core = ShareReplayCore(upstream: upstream, replay: 1)
/// core.subscribe(subscriber)
/// ```
///
/// **Demand:** the upstream is asked for `.unlimited`; each subscriber's conduit applies that subscriber's demand.
/// **Thread safety:** every method may be called from any thread. The core's lock is never held while calling the
/// upstream or a subscriber: values are pushed to a snapshot of the subscribers after unlocking, in the upstream's
/// own (serialized) order.
// Performance: `@usableFromInline` with `@inlinable` members (and `Publishers.ShareReplay.receive(subscriber:)`
// `@inlinable`), so that the client module specializes the connection (the upstream's subscriber, `FanInInner`, and
// the upstream's own subscription) and the loop over the receivers; each receiver's entry points are specialized for
// its subscriber type (see `ShareReplayReceiver`). The receivers are kept in a plain array handed out by copy: a
// value costs one retain of its storage, no allocation.
@usableFromInline
final class ShareReplayCore<Upstream: Publisher>: FanInParent, CustomStringConvertible, @unchecked Sendable {
    @usableFromInline typealias Output = Upstream.Output
    @usableFromInline typealias Failure = Upstream.Failure
    @usableFromInline typealias InnerInput = Output
    @usableFromInline typealias InnerFailure = Failure
    @usableFromInline typealias Receiver = ShareReplayReceiver<Output, Failure>

    @usableFromInline
    struct State {
        @usableFromInline var receivers: [Receiver] = []
        @usableFromInline var buffer = RingBuffer<Output>()
        /// The current connection's number and where its upstream stands (nil: not connected).
        @usableFromInline var connection: (number: Int, upstream: UpstreamSlot)?
        @usableFromInline var nextNumber = 0

        @inlinable
        init() {}

        /// Ends the current connection: returns the subscription to cancel and the buffer to release.
        @inlinable
        mutating func disconnect() -> (Subscription?, RingBuffer<Output>) {
            defer { connection = nil }
            return (connection?.upstream.subscription, buffer.takeAll())
        }
    }

    @usableFromInline let upstream: Upstream
    @usableFromInline let replay: Int
    @usableFromInline let state = LockedBox(tracking: State())

    @inlinable
    init(upstream: Upstream, replay: Int) {
        self.upstream = upstream
        self.replay = replay
    }

    @inlinable
    func subscribe<S: Subscriber>(_ subscriber: S) where S.Input == Output, S.Failure == Failure {
        var conduit: ShareReplayConduit<S>!
        let connect = state.withCriticalSection { state -> Int? in
            let id = state.nextNumber
            state.nextNumber += 1
            conduit = ShareReplayConduit(
                downstream: subscriber, id: id, replay: state.buffer.unsharedCopy(), limit: replay
            ) { [weak self] in self?.leave(id) }
            state.receivers.append(conduit)
            guard state.connection == nil else { return nil }
            let number = state.nextNumber
            state.nextNumber += 1
            state.connection = (number, .awaiting)
            return number
        }
        conduit.start()
        if let connect {
            CalloutCheck.assertNoLockHeld("share(replay:) subscribing upstream")
            upstream.subscribe(FanInInner(parent: self, id: connect))
        }
    }

    @usableFromInline
    func leave(_ id: Int) {
        let (cancel, released) = state.withCriticalSection {
            state -> (Subscription?, (RingBuffer<Output>, Receiver?)) in
            let index = state.receivers.firstIndex { $0.id == id }
            let receiver = index.map { state.receivers.remove(at: $0) }
            guard state.receivers.isEmpty, state.connection != nil else { return (nil, (.init(), receiver)) }
            let (subscription, buffer) = state.disconnect()
            return (subscription, (buffer, receiver))
        }
        withExtendedLifetime(released) {}
        CalloutCheck.assertNoLockHeld("share(replay:) cancelling upstream after the last subscriber left")
        cancel?.cancel()
    }

    @inlinable
    func inner(_ number: Int, subscribed subscription: Subscription) {
        // A subscription for an older connection (cancelled since) is refused like a second one.
        let admission = state.withCriticalSection { state -> UpstreamAdmission in
            guard state.connection?.number == number else { return .rejected }
            return state.connection?.upstream.admit(subscription, requesting: .unlimited) ?? .rejected
        }
        admission.perform(on: subscription, operator: "share(replay:)")
    }

    @inlinable
    func inner(_ number: Int, received value: Output) -> Subscribers.Demand {
        let (receivers, dropped) = state.withCriticalSection { state -> ([Receiver], Output?) in
            guard state.connection?.number == number else { return ([], nil) }
            var dropped: Output?
            if replay > 0 {
                state.buffer.append(value)
                if state.buffer.count > replay { dropped = state.buffer.popFirst() }
            }
            return (state.receivers, dropped)
        }
        withExtendedLifetime(dropped) {}
        for receiver in receivers {
            receiver.push(value)
        }
        return .none
    }

    @inlinable
    func inner(_ number: Int, completed completion: Subscribers.Completion<Failure>) {
        // The connection's subscription and the buffer are released after unlocking: their deinit may be user code.
        let (receivers, released) = state.withCriticalSection {
            state -> ([Receiver], (Subscription?, RingBuffer<Output>)) in
            guard state.connection?.number == number else { return ([], (nil, .init())) }
            let receivers = state.receivers
            state.receivers = []
            return (receivers, state.disconnect())
        }
        CalloutCheck.assertNoLockHeld("share(replay:) releasing its upstream's subscription")
        withExtendedLifetime(released) {}
        for receiver in receivers {
            receiver.finish(completion)
        }
    }

    @usableFromInline
    var description: String { "ShareReplay" }
}
