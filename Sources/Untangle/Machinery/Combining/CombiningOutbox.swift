/// zip's outbox: the operator's phase, the groups formed under the lock and waiting for
/// the forwarder, and which thread forwards them.
///
/// ```swift
/// var outbox = CombiningOutbox()
/// outbox.append([1, "a"])
/// if outbox.claimForwarding() { /* this thread forwards: loop over nextToForward() */ }
/// ```
///
/// Groups form under the operator's lock but may only be offered to the emitter outside it, so one thread at a time
/// (the one that claimed forwarding) takes them out in order with ``nextToForward()``; after the last group of a
/// finishing operator it answers `.finish`.
///
/// **Demand:** none of its own: groups are formed only within the demand the state machine counts.
/// **Thread safety:** none: a value inside the state machine, always mutated under the operator's lock.
@usableFromInline
struct CombiningOutbox {
    @usableFromInline
    enum Phase {
        /// Accepting values.
        case active
        /// No more groups will form; finish after forwarding those already formed.
        case finishing
        /// Finished, failed or cancelled: nothing more is forwarded.
        case ended
    }

    @usableFromInline private(set) var phase = Phase.active
    @usableFromInline var ready = RingBuffer<[Any]>()
    @usableFromInline var forwarding = false

    @inlinable
    init() {}

    @inlinable
    var isActive: Bool {
        if case .active = phase { return true }
        return false
    }

    @inlinable
    var isEnded: Bool {
        if case .ended = phase { return true }
        return false
    }

    /// Adds a formed group for the forwarder.
    @inlinable
    mutating func append(_ group: [Any]) {
        ready.append(group)
    }

    /// No more groups will form: the forwarder finishes after the ones already formed.
    @inlinable
    mutating func finish() {
        phase = .finishing
    }

    /// Ends at once; returns the groups never forwarded, to be released outside the lock.
    @inlinable
    mutating func end() -> [Any] {
        phase = .ended
        var unforwarded: [Any] = []
        while let group = ready.popFirst() {
            unforwarded.append(group)
        }
        return unforwarded
    }

    /// Makes the caller the forwarder if something is to be forwarded and nobody forwards; returns whether it did.
    @inlinable
    mutating func claimForwarding() -> Bool {
        guard !forwarding, !ready.isEmpty || phase == .finishing else { return false }
        forwarding = true
        return true
    }

    /// The forwarder takes the next formed group, or `.finish`, or gives up forwarding.
    @inlinable
    mutating func nextToForward() -> CombiningForward {
        if case .ended = phase {
            forwarding = false
            return .idle
        }
        if let group = ready.popFirst() {
            return .value(group)
        }
        forwarding = false
        if case .finishing = phase {
            phase = .ended
            return .finish
        }
        return .idle
    }
}
