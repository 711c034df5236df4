/// The pure state machine of `collect(_:options:)` by time: the buffer being filled, the repeating timer's
/// cancellable, and how downstream demand maps upstream. It never calls out, and it never releases the timer's
/// cancellable itself (releasing it cancels the timer, a callout): every method that drops it hands it back.
///
/// **Demand:** `.byTime`: the first downstream request asks the upstream for `.unlimited`; `.byTimeOrCount`: each
/// request of `n` groups asks the upstream for `n * count` values. Groups beyond the downstream's demand wait in the
/// emitter.
/// **Thread safety:** none: always mutated under the subscription's lock.
struct CollectByTimeStateMachine<Output> {
    /// What the end of the stream leaves to do outside the lock.
    struct Ending {
        var upstream: UpstreamSlot
        var timer: Cancellable?
        /// The last, partial group to deliver before `.finished` (nil if empty or on failure).
        var group: [Output]?
        /// Values dropped by a failure or a cancel, released outside the lock.
        var dropped: [Output]
    }

    /// The group size that cuts a group before the timer does (nil: by time only).
    let count: Int?
    private(set) var upstream = UpstreamSlot.awaiting
    private var buffer: [Output] = []
    private var timer: Cancellable?
    private var askedUnlimited = false
    private(set) var closed = false

    init(count: Int?) {
        self.count = count
    }

    mutating func receiveSubscription(_ subscription: Subscription) -> Bool {
        guard case .awaiting = upstream, !closed else { return false }
        upstream = .subscribed(subscription)
        return true
    }

    /// Keeps the started timer; hands it back (to be cancelled outside the lock) if the stream already ended.
    mutating func timerStarted(_ cancellable: Cancellable) -> Cancellable? {
        guard !closed else { return cancellable }
        timer = cancellable
        return nil
    }

    /// A value arrived: returns the group to deliver if it completes one by count.
    mutating func receiveValue(_ value: Output) -> [Output]? {
        guard !closed else { return nil }
        buffer.append(value)
        guard let count, buffer.count >= count else { return nil }
        defer { buffer = [] }
        return buffer
    }

    /// The timer fired: returns the group collected since the last one, if it is not empty.
    mutating func tick() -> [Output]? {
        guard !closed, !buffer.isEmpty else { return nil }
        defer { buffer = [] }
        return buffer
    }

    /// The downstream asked for `demand` groups (or returned that demand): the request to make upstream, if any.
    mutating func upstreamRequest(for demand: Subscribers.Demand) -> (Subscription, Subscribers.Demand)? {
        guard case .subscribed(let subscription) = upstream else { return nil }
        if let count {
            return (subscription, demand * count)
        }
        guard !askedUnlimited else { return nil }
        askedUnlimited = true
        return (subscription, .unlimited)
    }

    /// The upstream completed (`finished`) or failed, or the downstream cancelled (`finished == false` too): nil if
    /// the stream had already ended.
    mutating func end(finished: Bool) -> Ending? {
        guard !closed else { return nil }
        closed = true
        let taken = buffer
        let ending = Ending(
            upstream: upstream, timer: timer, group: finished && !taken.isEmpty ? taken : nil,
            dropped: finished ? [] : taken)
        upstream = .ended
        timer = nil
        buffer = []
        return ending
    }
}
