import UntangleSync

/// zip's outbox: the operator's phase, the groups formed under the lock and waiting for the forwarder, and whether
/// a thread forwards them.
///
/// ```swift
/// var outbox = CombiningOutbox()
/// outbox.append([1, "a"])
/// if outbox.claimForwarding() { /* this thread forwards: loop over nextToForward() until it is not a value */ }
/// ```
///
/// Groups form under the operator's lock but may only be offered to the emitter outside it, so one thread at a time
/// (the one that claimed forwarding) takes them out in order with ``nextToForward()``; after the last group of a
/// finishing operator it answers `.finish`. Only the forwarder asks for the next step, and it asks until it is told
/// to stop: anything else is an inconsistency, and traps.
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

    /// Whether a thread forwards the groups.
    @usableFromInline
    enum Forwarding {
        /// Nobody: the next thread that has something to forward claims the role.
        case idle
        /// A thread forwards: it takes every group out until ``nextToForward()`` tells it to stop.
        case claimed
    }

    @usableFromInline private(set) var phase = Phase.active
    @usableFromInline private(set) var forwarding = Forwarding.idle
    @usableFromInline var ready = RingBuffer<[Any]>()

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
        guard case .active = phase else { fatalError("CombiningOutbox: append(_:) in \(phase)") }
        ready.append(group)
    }

    /// No more groups will form: the forwarder finishes after the ones already formed.
    @inlinable
    mutating func finish() {
        guard case .active = phase else { fatalError("CombiningOutbox: finish() in \(phase)") }
        phase = .finishing
    }

    /// Ends at once; returns the groups never forwarded, to be released outside the lock. A forwarder at work stops
    /// at its next step.
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
        guard case .idle = forwarding, !ready.isEmpty || phase == .finishing else { return false }
        forwarding = .claimed
        return true
    }

    /// The forwarder takes the next formed group, or `.finish`, or gives up forwarding.
    @inlinable
    mutating func nextToForward() -> CombiningForward {
        guard case .claimed = forwarding else {
            fatalError("CombiningOutbox: nextToForward() in \(phase) by a thread that has not claimed forwarding")
        }
        if case .ended = phase {
            forwarding = .idle
            return .idle
        }
        if let group = ready.popFirst() {
            return .value(group)
        }
        forwarding = .idle
        if case .finishing = phase {
            phase = .ended
            return .finish
        }
        return .idle
    }
}

/// The forwarder's next step, as ``CombiningOutbox/nextToForward()`` answers it.
///
/// **Demand:** none.
/// **Thread safety:** a value.
@usableFromInline
enum CombiningForward {
    /// Hand this group to the emitter.
    case value([Any])
    /// Every group was handed over: finish the emitter (after its queued values).
    case finish
    /// Nothing to forward now; the caller is no longer the forwarder.
    case idle
}
