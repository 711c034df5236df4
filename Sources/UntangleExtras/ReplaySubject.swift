import Untangle
import UntangleSync

/// A subject that replays the latest values it received to every new subscriber, then relays live values.
///
/// `ReplaySubject(bufferSize: n)` keeps the last `n` values; ``unbounded()`` keeps all of them. A subscriber that
/// subscribes after the completion receives the buffered values, then the completion.
///
/// ```swift
/// let subject = ReplaySubject<Int, Never>(bufferSize: 2)
/// subject.send(1); subject.send(2); subject.send(3)
/// let cancellable = subject.sink { print($0) }   // prints 2, 3
/// subject.send(4)                               // prints 4
/// ```
///
/// Every subscriber sees the values in one order, the order of the subject's own buffer, even when several
/// threads send at once. Per subscriber, the values that wait for its demand follow the replay buffer's rule: a
/// subscriber without demand keeps the newest `bufferSize` values it has not received yet (older ones are dropped,
/// exactly as a late subscriber would not see them), all of them for an unbounded subject. The completion is
/// delivered after those values (so a subscriber that never requests again never receives it).
///
/// **Demand:** per subscriber: replayed and live values are delivered only within its demand; values beyond it
/// are kept as described above. `send(subscription:)` requests `.unlimited` upstream at once; the subject keeps
/// every upstream subscription, as Apple's subjects do (see ``send(subscription:)``).
/// **Thread safety:** `send`, `send(completion:)`, `subscribe` and every subscription's `request`/`cancel` may be
/// called from any thread, concurrently. Replayed and live values are delivered outside every lock, one signal at a
/// time per subscriber, and no thread waits for another thread's delivery.
public final class ReplaySubject<Output, Failure: Error>: Subject, @unchecked Sendable {
    // Lock order: the subject's lock may be held while a subscriber's emitter lock is taken (values are queued to
    // every subscriber under the subject's lock, which gives them all the same order); an emitter's lock is a leaf
    // and never takes the subject's lock.
    //
    // Performance: `send(_:)` and `receive(subscriber:)` are `@inlinable`, so the client module specializes them for
    // its concrete `Output`, `Failure` and subscriber types; unspecialized, every generic type they touch (this
    // state, the ring buffer, the conduit list, each subscriber's emitter) cost a runtime metadata lookup per send.
    @usableFromInline
    struct State {
        /// The values replayed, oldest first, when `bufferSize` is 2 or more.
        @usableFromInline var buffer = RingBuffer<Output>()
        // Performance: a full `bufferSize: 1` (the common one) replaces its value on every send; kept in an optional
        // instead of the ring buffer, that is a swap, not a uniqueness check and an index computation
        // (replay-subject-sink: 48 instructions per send less).
        /// The value replayed when `bufferSize` is 1 (`buffer` stays empty then).
        @usableFromInline var latest: Output?
        @usableFromInline var subscriptions: [ReplayConduit<Output, Failure>] = []
        @usableFromInline var completion: Subscribers.Completion<Failure>?
        var upstreams = SubjectUpstreams()
    }

    @usableFromInline let state = LockedBox(tracking: State())
    /// The number of values replayed (`Int.max` when unbounded).
    public let bufferSize: Int

    /// Creates a subject that replays the last `bufferSize` values (0 replays nothing and keeps nothing for
    /// subscribers without demand, like `PassthroughSubject`).
    ///
    /// - Precondition: `bufferSize >= 0`.
    public init(bufferSize: Int) {
        precondition(bufferSize >= 0, "ReplaySubject: bufferSize must not be negative (got \(bufferSize))")
        self.bufferSize = bufferSize
    }

    /// Creates a subject that replays every value it ever received (memory grows with every value).
    ///
    /// ```swift
    /// let history = ReplaySubject<String, Never>.unbounded()
    /// ```
    public static func unbounded() -> ReplaySubject {
        ReplaySubject(bufferSize: Int.max)
    }

    deinit {
        let upstreams = state.withCriticalSection { $0.upstreams.takeAll() }
        for upstream in upstreams {
            upstream.cancel()
        }
    }

    /// What each subscriber keeps beyond its demand: the newest `bufferSize` values, like the replay buffer.
    @inlinable
    var limit: EmitterWaitingLimit {
        bufferSize == Int.max ? .unbounded : .newest(bufferSize)
    }

    /// Attaches a subscriber: it receives the buffered values (as it requests them), then live values.
    @inlinable
    public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
        let limit = self.limit
        let (conduit, completion) = state.withCriticalSection {
            state -> (ReplaySubscription<S>, Subscribers.Completion<Failure>?) in
            // The buffered values are queued in the new subscriber's emitter (no more than the limit, so none is
            // dropped): whatever is sent after this critical section reaches it through the subscription list,
            // whatever was sent before is in the snapshot.
            let conduit = ReplaySubscription(downstream: subscriber, limit: limit, subject: self)
            if let latest = state.latest {
                _ = conduit.emitter.enqueue(latest, limit: limit)
            }
            var copy = state.buffer
            while let value = copy.popFirst() {
                _ = conduit.emitter.enqueue(value, limit: limit)
            }
            if state.completion == nil {
                state.subscriptions.append(conduit)
            }
            return (conduit, state.completion)
        }
        if let completion {
            conduit.emitter.complete(completion, order: .afterQueuedValues)
        }
        conduit.emitter.start(subscription: conduit)
    }

    /// Buffers `value` for replay and sends it to every subscriber. Ignored after a completion.
    @inlinable
    public func send(_ value: Output) {
        let bufferSize = self.bufferSize
        // Every subscriber's emitter accepts the value under the subject's lock, so all of them see one order; the
        // deliveries happen after it.
        // Optional arrays: made only when something is dropped (an empty array still costs a release).
        var dropped: [Output]?
        let (subscriptions, oldest) = state.withCriticalSection {
            state -> ([ReplayConduit<Output, Failure>], Output?) in
            guard state.completion == nil else { return ([], nil) }
            var oldest: Output?
            if bufferSize == 1 {
                oldest = state.latest
                state.latest = value
            } else if bufferSize > 0 {
                if state.buffer.count == bufferSize {
                    oldest = state.buffer.popFirst()
                }
                state.buffer.append(value)
            }
            // Performance: when this thread owns every subscriber's emitter (the usual case: nobody else is
            // delivering), the list itself is returned, retained rather than copied into a new array, and walked
            // borrowed (no reference count per subscriber). Only a subscriber that is not owned makes the separate
            // list, of the owned ones in order.
            var owned: [ReplayConduit<Output, Failure>]?
            var ownedPrefix = 0
            var everyOneOwned = true
            let subscriptions = state.subscriptions
            RawReference.forEachBorrowed(in: subscriptions) { conduit in
                if conduit.accept(value, dropped: &dropped) {
                    if everyOneOwned {
                        ownedPrefix += 1
                    } else {
                        owned?.append(conduit)
                    }
                } else if everyOneOwned {
                    everyOneOwned = false
                    owned = Array(subscriptions[0..<ownedPrefix])
                }
            }
            return (owned ?? subscriptions, oldest)
        }
        // Values dropped by the replay buffer or by a subscriber's limit are released here, outside the locks
        // (their deinit is user code).
        withExtendedLifetime((oldest, dropped)) {}
        // The subscribers whose emitter this thread now owns get the value from here; the others have it queued
        // (their owner, or their next request, delivers it).
        RawReference.forEachBorrowed(in: subscriptions) { $0.deliverAccepted(value) }
    }

    /// Sends a completion to every subscriber (after the values waiting for its demand); the first one wins.
    /// Later subscribers receive the buffered values, then this completion.
    public func send(completion: Subscribers.Completion<Failure>) {
        // Upstream subscriptions stay with the subject (as with Combine's subjects) until it goes away and cancels
        // them; their values are ignored from now on.
        let subscriptions = state.withCriticalSection { state -> [ReplayConduit<Output, Failure>] in
            guard state.completion == nil else { return [] }
            state.completion = completion
            defer { state.subscriptions = [] }
            return state.subscriptions
        }
        for subscription in subscriptions {
            subscription.finish(completion)
        }
    }

    /// Requests `.unlimited` from an upstream subscription, at once.
    ///
    /// As Apple's subjects do, the subject keeps every subscription it is handed (once per hand-over), also after its
    /// completion (values arriving then are ignored) and also one handed over after it, until the subject goes away
    /// and cancels each. A connection made by `subscribe(_:)` that has ended is let go when the next one arrives.
    public func send(subscription: Subscription) {
        let dropped = state.withCriticalSection { $0.upstreams.add(subscription) }
        withExtendedLifetime(dropped) {}
        CalloutCheck.assertNoLockHeld("a replay subject requesting from an upstream subscription")
        subscription.request(.unlimited)
    }

    func remove(_ conduit: ReplayConduit<Output, Failure>) {
        let removed = state.withCriticalSection { state -> ReplayConduit<Output, Failure>? in
            guard let index = state.subscriptions.firstIndex(where: { $0 === conduit }) else { return nil }
            return state.subscriptions.remove(at: index)
        }
        withExtendedLifetime(removed) {}
    }
}

/// One subscriber's connection, as the subject sees it (without the subscriber's type).
///
/// Performance: the per-send entry points (`accept(_:dropped:)`, `deliverAccepted(_:)`) are stored closures, not
/// overridden methods, as in the core's `SubjectConduit`: an override of a generic class runs the subclass's
/// unspecialized code (a runtime metadata lookup for every generic type it touches, per call). The closures are
/// formed in `ReplaySubscription`'s `@inlinable` initializer, which the client specializes for the concrete
/// subscriber; they capture nothing, so they cost no allocation.
@usableFromInline
class ReplayConduit<Output, Failure: Error>: @unchecked Sendable {
    /// Accepts a value for the conduit passed as the first argument (see `accept(_:dropped:)`).
    @usableFromInline let acceptEntry: (ReplayConduit, Output, inout [Output]?) -> Bool
    /// Delivers an accepted value for the conduit passed as the first argument (see `deliverAccepted(_:)`).
    @usableFromInline let deliverEntry: (ReplayConduit, Output) -> Void

    @inlinable
    init(
        acceptEntry: @escaping (ReplayConduit, Output, inout [Output]?) -> Bool,
        deliverEntry: @escaping (ReplayConduit, Output) -> Void
    ) {
        self.acceptEntry = acceptEntry
        self.deliverEntry = deliverEntry
    }

    /// Accepts a value (takes only the subscriber's leaf lock); call under the subject's lock. Returns true when
    /// the caller must deliver it with `deliverAccepted(_:)` after leaving that lock; appends the older value the
    /// subscriber's limit dropped to make room, if any, to `dropped`.
    @inlinable
    final func accept(_ value: Output, dropped: inout [Output]?) -> Bool {
        acceptEntry(self, value, &dropped)
    }

    /// Delivers a value `accept(_:dropped:)` returned true for; call after leaving the subject's lock.
    @inlinable
    final func deliverAccepted(_ value: Output) {
        deliverEntry(self, value)
    }

    func finish(_ completion: Subscribers.Completion<Failure>) {
        preconditionFailure("ReplayConduit.finish is abstract")
    }
}

@usableFromInline
final class ReplaySubscription<Downstream: Subscriber>: ReplayConduit<Downstream.Input, Downstream.Failure>,
    Subscription, CustomStringConvertible, @unchecked Sendable
{
    @usableFromInline let emitter: Emitter<Downstream>
    /// What this subscriber keeps beyond its demand (the subject's `bufferSize` newest values).
    @usableFromInline let limit: EmitterWaitingLimit
    // Weak: the subject keeps its subscriptions, not the other way round.
    @usableFromInline weak var subject: ReplaySubject<Downstream.Input, Downstream.Failure>?

    @inlinable
    init(
        downstream: Downstream, limit: EmitterWaitingLimit, subject: ReplaySubject<Downstream.Input, Downstream.Failure>
    ) {
        // Only the subject's `enqueue` and `accept` calls feed this emitter, with the limit above: its own policy is
        // never consulted.
        emitter = Emitter(downstream: downstream, policy: .unbounded)
        self.limit = limit
        // The first argument is always this class (a conduit calls its entries with itself), so the downcast is
        // safe; passing it in keeps the closures capture-free.
        super.init(
            acceptEntry: { conduit, value, dropped in
                let subscription = RawReference.downcast(conduit, to: ReplaySubscription.self)
                var old: Downstream.Input?
                let owned = subscription.emitter.accept(value, limit: subscription.limit, dropped: &old)
                if let old {
                    if dropped == nil { dropped = [old] } else { dropped?.append(old) }
                }
                return owned
            },
            deliverEntry: { conduit, value in
                RawReference.downcast(conduit, to: ReplaySubscription.self).emitter.deliverAccepted(value)
            })
        self.subject = subject
    }

    override func finish(_ completion: Subscribers.Completion<Downstream.Failure>) {
        emitter.complete(completion, order: .afterQueuedValues)
    }

    @usableFromInline
    func request(_ demand: Subscribers.Demand) {
        demand.preconditionNonZero()
        emitter.request(demand)
    }

    @usableFromInline
    func cancel() {
        if emitter.cancel() {
            subject?.remove(self)
        }
    }

    @usableFromInline
    var description: String { "ReplaySubject" }
}
