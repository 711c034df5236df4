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
/// **Thread safety:** every method may be called from any thread; the subscriber is read under the lock and called
/// after unlocking.
final class GroupSlot<Output, Failure: Error>: @unchecked Sendable {
    /// The slot's phase: a group takes one subscriber, once.
    private enum Phase {
        case empty
        case filled(AnySubscriber<Output, Failure>)
        /// The subscriber left (the group completed or was cancelled); no other is taken.
        case emptied
    }

    private let phase = LockedBox(tracking: Phase.empty)

    /// Puts the subscriber in: false if the group already had one.
    func fill(_ subscriber: AnySubscriber<Output, Failure>) -> Bool {
        phase.withCriticalSection { phase in
            guard case .empty = phase else { return false }
            phase = .filled(subscriber)
            return true
        }
    }

    var subscriber: AnySubscriber<Output, Failure>? {
        phase.withCriticalSection { phase in
            guard case .filled(let subscriber) = phase else { return nil }
            return subscriber
        }
    }

    /// Empties the slot: returns the subscriber to release after unlocking.
    func empty() -> AnySubscriber<Output, Failure>? {
        phase.withCriticalSection { phase in
            guard case .filled(let subscriber) = phase else { return nil }
            phase = .emptied
            return subscriber
        }
    }
}
