import UntangleSync

/// The cancellable that `Publishers.Multicast.connect()` returns: it owns the subscription of the subject to the
/// upstream, and cancelling it (from any thread, any number of times) disconnects once.
///
/// **Demand:** not applicable (the subject asks the upstream for `.unlimited`).
/// **Thread safety:** `cancel()` may race with the connect that is still subscribing: whichever comes second
/// cancels the upstream subscription, outside the lock.
final class MulticastConnection: Cancellable, @unchecked Sendable {
    private struct State {
        var upstream: AnyCancellable?
        var cancelled = false
    }

    private let state = LockedBox(tracking: State())
    private let onCancel: (MulticastConnection) -> Void

    /// `onCancel` lets the multicast forget this connection (so that the next `connect()` makes a new one).
    init(onCancel: @escaping (MulticastConnection) -> Void) {
        self.onCancel = onCancel
    }

    /// The subject's subscription to the upstream exists: keep it, or cancel it at once if this connection was
    /// cancelled meanwhile.
    func attach(_ upstream: AnyCancellable) {
        let cancelled = state.withCriticalSection { state -> Bool in
            guard !state.cancelled else { return true }
            state.upstream = upstream
            return false
        }
        CalloutCheck.assertNoLockHeld("multicast disconnecting a connection cancelled while connecting")
        if cancelled {
            upstream.cancel()
        }
    }

    func cancel() {
        let upstream = state.withCriticalSection { state -> AnyCancellable?? in
            guard !state.cancelled else { return nil }
            state.cancelled = true
            defer { state.upstream = nil }
            return .some(state.upstream)
        }
        guard let upstream else { return }
        CalloutCheck.assertNoLockHeld("multicast disconnecting")
        onCancel(self)
        upstream?.cancel()
    }
}
