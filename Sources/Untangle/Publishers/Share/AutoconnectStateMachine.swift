/// The pure state machine of an autoconnect: how many subscribers are attached and whether the upstream is
/// connected. It never calls out; `connect()` and the connection's `cancel()` are performed by the caller after
/// unlocking.
///
/// The model is a reference count: the subscriber that takes the count from 0 to 1 connects; the one that takes it
/// back to 0 by cancelling disconnects (a completion does not count, as in Combine). A connect that is still running on one
/// thread when the count drops to 0 is disconnected by that thread as soon as it returns; if a new subscriber arrived
/// meanwhile, the running connect serves it, so two connects never overlap.
///
/// **Thread safety:** none: always mutated under the autoconnect's lock.
struct AutoconnectStateMachine {
    enum Connection {
        case disconnected
        /// A thread is calling `connect()` outside the lock.
        case connecting
        case connected(Cancellable)
    }

    private(set) var connection = Connection.disconnected
    private(set) var subscribers = 0

    /// A subscriber is attaching: returns true if the caller must connect (after subscribing it upstream).
    mutating func subscriberAdded() -> Bool {
        subscribers += 1
        guard case .disconnected = connection else { return false }
        connection = .connecting
        return true
    }

    /// The caller's `connect()` returned: returns the connection to cancel at once if every subscriber left
    /// meanwhile (nil: it is kept).
    mutating func connected(_ cancellable: Cancellable) -> Cancellable? {
        guard case .connecting = connection else {
            impossibleEvent("AutoconnectStateMachine: connected while no connect was running")
        }
        guard subscribers > 0 else {
            connection = .disconnected
            return cancellable
        }
        connection = .connected(cancellable)
        return nil
    }

    /// A subscriber cancelled: returns the connection to cancel if it was the last one.
    mutating func subscriberRemoved() -> Cancellable? {
        guard subscribers > 0 else { impossibleEvent("AutoconnectStateMachine: subscriberRemoved with no subscriber") }
        subscribers -= 1
        guard subscribers == 0, case .connected(let cancellable) = connection else { return nil }
        connection = .disconnected
        return cancellable
    }
}
