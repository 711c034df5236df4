import Foundation
import Untangle
import UntangleSync

/// The seed article's playhead-progress publisher, hand-written, in a correct version and with each of the
/// article's bugs switchable on (`bug`), so tests can show PublisherVerifier catching each one.
///
/// The correct version keeps all mutable state in one LockedBox, decides under the lock and calls out (subscriber,
/// player) after unlocking; deliveries are serialized because the player's ticks are.
struct PlayheadProgressPublisher: Publisher {
    typealias Output = Double
    typealias Failure = Never

    enum Bug: CaseIterable {
        /// Correct.
        case none
        /// Ignores demand: every tick is delivered.
        case overDelivers
        /// Keeps delivering ticks after the end of playback was signalled.
        case emitsAfterCompletion
        /// `requested += demand` as an unprotected read-modify-write: concurrent requests are lost.
        case unprotectedDemand
        /// Delivers while holding the lock that `request` and `cancel` also take (the article's NSRecursiveLock).
        case emitsUnderLock
        /// `cancel()` only drops the subscriber reference; the running observer keeps delivering to the subscriber
        /// it captured.
        case cancelRacesDelivery
    }

    let player: FakePlayer
    var bug: Bug = .none

    func receive<S: Subscriber>(subscriber: S) where S.Input == Double, S.Failure == Never {
        let subscription = PlayheadSubscription(player: player, subscriber: AnySubscriber(subscriber), bug: bug)
        subscriber.receive(subscription: subscription)
        // Observe from the start (not from the first request, as the article does): the end of playback must reach
        // a subscriber that has not requested anything yet (the verifier's "completion delivered without demand").
        subscription.startObserving()
    }
}

private final class PlayheadSubscription: Subscription, @unchecked Sendable {
    private struct State {
        var subscriber: AnySubscriber<Double, Never>?
        var requested = Subscribers.Demand.none
        var token: Int?
        var finished = false
    }

    private let player: FakePlayer
    private let bug: PlayheadProgressPublisher.Bug
    private let state: LockedBox<State>
    /// Only used by `.emitsUnderLock`: the article's recursive lock, held across delivery.
    private let recursiveLock = NSRecursiveLock()

    init(player: FakePlayer, subscriber: AnySubscriber<Double, Never>, bug: PlayheadProgressPublisher.Bug) {
        self.player = player
        self.bug = bug
        state = LockedBox(State(subscriber: subscriber))
    }

    func request(_ demand: Subscribers.Demand) {
        if bug == .emitsUnderLock { recursiveLock.lock() }
        defer { if bug == .emitsUnderLock { recursiveLock.unlock() } }
        if bug == .unprotectedDemand {
            // The unprotected `requested += demand`, with its read and write split so the lost update is likely
            // (and ThreadSanitizer-clean: the race is logical, not a memory race).
            let current = state.withLock { $0.requested }
            usleep(200)
            state.withLock { $0.requested = current + demand }
        } else {
            state.withLock { $0.requested += demand }
        }
    }

    func startObserving() {
        // Only the buggy variants capture the subscriber in the observer (that is their bug).
        let capturesSubscriber = bug == .cancelRacesDelivery || bug == .emitsAfterCompletion
        let capturedSubscriber = capturesSubscriber ? state.withLock { $0.subscriber } : nil
        let token = player.addPeriodicTimeObserver(
            onTick: { [weak self] time in self?.sendValue(time, captured: capturedSubscriber) },
            onEnd: { [weak self] in self?.finish() })
        let stale = state.withLock { state -> Int? in
            if state.subscriber == nil { return token }  // cancelled meanwhile
            state.token = token
            return nil
        }
        if let stale { player.removeTimeObserver(stale) }
    }

    private func sendValue(_ time: Double, captured: AnySubscriber<Double, Never>?) {
        if bug == .emitsUnderLock {
            recursiveLock.lock()
            defer { recursiveLock.unlock() }
            deliver(time, captured: captured)
        } else {
            deliver(time, captured: captured)
        }
    }

    private func deliver(_ time: Double, captured: AnySubscriber<Double, Never>?) {
        let target = state.withLock { state -> AnySubscriber<Double, Never>? in
            if state.finished, bug != .emitsAfterCompletion { return nil }
            let usesCapture = bug == .cancelRacesDelivery || bug == .emitsAfterCompletion
            guard let subscriber = usesCapture ? captured : state.subscriber else { return nil }
            if bug == .overDelivers { return subscriber }
            guard state.requested > .none else { return nil }
            state.requested -= 1
            return subscriber
        }
        guard let target else { return }
        let more = target.receive(time)
        state.withLock { $0.requested += more }
    }

    private func finish() {
        let subscriber = state.withLock { state -> AnySubscriber<Double, Never>? in
            defer {
                state.subscriber = nil
                state.finished = true
            }
            return state.subscriber
        }
        // The correct version also stops observing; `.emitsAfterCompletion` forgets to.
        if bug != .emitsAfterCompletion { stopObserving() }
        subscriber?.receive(completion: .finished)
    }

    func cancel() {
        if bug == .emitsUnderLock { recursiveLock.lock() }
        defer { if bug == .emitsUnderLock { recursiveLock.unlock() } }
        let released = state.withLock { state -> AnySubscriber<Double, Never>? in
            defer { state.subscriber = nil }
            return state.subscriber
        }
        _ = released
        if bug != .cancelRacesDelivery { stopObserving() }
    }

    private func stopObserving() {
        let token = state.withLock { state -> Int? in
            defer { state.token = nil }
            return state.token
        }
        if let token { player.removeTimeObserver(token) }
    }
}
