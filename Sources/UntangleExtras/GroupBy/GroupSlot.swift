import Untangle
import UntangleSync

/// The place where a group's one subscriber is put when it arrives: the group's `Emitter` is created (and queues
/// values) before anyone subscribes, so its downstream is a ``GroupTarget`` that reads the subscriber from here.
///
/// ```swift
/// let slot = GroupSlot<Int, Never>()
/// slot.fill(AnySubscriber(subscriber))   // false if the group already had a subscriber
/// ```
///
/// **Demand:** not applicable.
/// **Thread safety:** every method may be called from any thread; the subscriber is read under the lock and called
/// after unlocking.
final class GroupSlot<Output, Failure: Error>: @unchecked Sendable {
    private struct State {
        var subscriber: AnySubscriber<Output, Failure>?
        var filled = false
    }

    private let state = LockedBox(tracking: State())

    /// Puts the subscriber in: false if the group already had one.
    func fill(_ subscriber: AnySubscriber<Output, Failure>) -> Bool {
        state.withCriticalSection { state in
            guard !state.filled else { return false }
            state.filled = true
            state.subscriber = subscriber
            return true
        }
    }

    var subscriber: AnySubscriber<Output, Failure>? {
        state.withCriticalSection { $0.subscriber }
    }

    /// Empties the slot: returns the subscriber to release after unlocking.
    func empty() -> AnySubscriber<Output, Failure>? {
        state.withCriticalSection { state in
            defer { state.subscriber = nil }
            return state.subscriber
        }
    }
}
