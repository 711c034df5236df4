import Untangle
import UntangleSync

// Performance: one object and one lock for both subscriptions (two `SerialCancellable`s were four heap blocks and
// a lock each), and, being the `Create` producer's teardown itself, nothing more to make for that.
/// What a trait's `TraitSupport.chain` keeps to cancel: its first publisher's subscription (`outer`) and the one it
/// continued with (`inner`), each kept once when it arrives. Cancelling cancels both (outer first) and every
/// subscription arriving afterwards, at once; so does its deinit.
///
/// The two are kept apart: a synchronous first publisher starts the second one while its own signals are still
/// being delivered, and neither may replace the other.
///
/// ```swift
/// let slots = TraitChainSlots()
/// slots.adopt(subscription, as: .outer)
/// slots.cancel()
/// ```
///
/// **Demand:** none.
/// **Thread safety:** every method from any thread; what it cancels is cancelled after the lock is released.
@usableFromInline
final class TraitChainSlots: Cancellable, @unchecked Sendable {
    /// Which subscription of the chain.
    @usableFromInline
    enum Slot {
        /// The first publisher's.
        case outer
        /// The one the chain continued with.
        case inner
    }

    @usableFromInline
    struct State {
        @usableFromInline var outer: (any Cancellable)?
        @usableFromInline var inner: (any Cancellable)?
        @usableFromInline var isCancelled = false

        @inlinable
        init() {}
    }

    @usableFromInline let state = LockedBox(tracking: State())

    @inlinable
    init() {}

    deinit {
        cancel()
    }

    /// A chain's subscriber received `subscription`: kept in `slot`, then asked for `.unlimited` (the chain's
    /// `Create` subscriber keeps values for its own subscriber's demand). A second subscription for a slot that has
    /// one (a publisher breaking the contract), or one arriving after ``cancel()``, is cancelled and asked nothing, as
    /// `Subscribers.Sink` does.
    @inlinable
    func adopt(_ subscription: Subscription, as slot: Slot) {
        let kept = state.withCriticalSection { state -> Bool in
            guard !state.isCancelled else { return false }
            switch slot {
            case .outer:
                guard state.outer == nil else { return false }
                state.outer = subscription
            case .inner:
                guard state.inner == nil else { return false }
                state.inner = subscription
            }
            return true
        }
        CalloutCheck.assertNoLockHeld("a trait chain answering a subscription")
        guard kept else {
            subscription.cancel()
            return
        }
        subscription.request(.unlimited)
    }

    /// Cancels both subscriptions (outer first) and every one adopted afterwards. Idempotent.
    @usableFromInline
    func cancel() {
        let (outer, inner) = state.withCriticalSection { state -> ((any Cancellable)?, (any Cancellable)?) in
            state.isCancelled = true
            defer { (state.outer, state.inner) = (nil, nil) }
            return (state.outer, state.inner)
        }
        CalloutCheck.assertNoLockHeld("a trait chain cancelling its subscriptions")
        outer?.cancel()
        inner?.cancel()
    }
}
