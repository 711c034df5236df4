import UntangleSync

/// The subscriber behind ``AsyncPublisher``, ``AsyncThrowingPublisher`` and `Future.value`: it turns "await the next
/// value" into demand on the upstream, and parks the awaiting task in a continuation until a value, the completion or
/// a cancellation arrives. Values that arrive while no call waits are kept, in order, for the next calls. Several
/// `next()` calls may wait at once (copies of one iterator used from several tasks); they are answered in the order
/// they were made, as in Combine.
///
/// ```swift
/// let subscriber = AsyncValueSubscriber<Int, Never>(window: 1)
/// Just(1).subscribe(subscriber)
/// let first = await subscriber.next()   // .success(1); the next call returns nil
/// ```
///
/// **Demand:** with a `window` of 1 (what `values` and `Future.value` use), `.max(1)` per ``next()`` call that finds
/// no value kept and no completion waiting, as in Combine. With a larger window (a bounded prefetch, about 8x faster
/// per element over a synchronous chain; not used by `values`, whose `.max(1)` per call the conformance suite
/// records), the first call requests `.max(window)`, and a call that leaves half of the window or less
/// requested-or-kept ahead requests the difference back up to `window`; nothing is requested between calls, so at
/// most `window` values are requested or kept ahead of the awaiting task (more only while more calls than that wait
/// at once: one value each). Calls made before the subscription arrives
/// are requested together when it does. A value delivered during the call's own request (a synchronous upstream) is
/// returned without suspending the task. A value the upstream sends beyond what was requested stops the program, as in
/// Combine; a value sent before the subscription or after the completion ends every waiting call with nil instead. A
/// failure is handed out after the values that arrived before it; a cancel drops the values kept.
/// **Thread safety:** `receive`, ``cancel()`` and ``next()`` may be called from any thread or task, concurrently. The
/// lock is never held across an await or a callout: continuations are resumed, the upstream is asked or cancelled and
/// dropped values are released after unlocking.
//
// Performance: the class and the iterator path are `@inlinable`, so that `for await` in the caller's module
// specializes the subscriber and, through `subscribe`, the whole upstream chain. Compiled once in this module, every
// value ran unspecialized generic code: a runtime metadata lookup (`Optional<Input>`, `Result`, the state, the ring
// buffer) at nearly every step, about 4 µs per element of `values-map-filter` (callgrind: 55% of the consumer
// thread's instructions in `swift_getGenericMetadata`).
@usableFromInline
final class AsyncValueSubscriber<Input, Failure: Error>: Subscriber, Cancellable, @unchecked Sendable {
    @usableFromInline typealias Continuation = UnsafeContinuation<Handoff, Never>

    // A value crosses from the delivering thread to the awaiting task here, as in any publisher-to-async bridge: the
    // publisher hands it over and the task owns it from then on. Combine's outputs need not be Sendable, so the
    // hand-over is unchecked, as for Apple's AsyncPublisher.
    @usableFromInline
    struct Handoff: @unchecked Sendable {
        @usableFromInline let result: Result<Input, Failure>?
        @inlinable init(result: Result<Input, Failure>?) { self.result = result }
    }

    @usableFromInline
    enum Status {
        /// No subscription yet: calls park, and are requested together when it arrives.
        case awaitingSubscription
        case subscribed(Subscription)
        /// The upstream completed with a failure nobody has received yet (it comes after the values kept).
        case failed(Failure)
        /// Finished, cancelled, or the failure was handed out: once the values kept are taken, every `next()` returns
        /// nil.
        case ended
    }

    @usableFromInline
    struct State {
        @usableFromInline var status = Status.awaitingSubscription
        /// The calls waiting for a value, oldest first. Only while `kept` is empty: a value arriving while a call
        /// waits goes to that call.
        @usableFromInline var waiting: [Continuation] = []
        /// `next()` calls between their request and parking (they look into `kept` first).
        @usableFromInline var unparked = 0
        /// Demand requested from the upstream and not delivered yet.
        @usableFromInline var outstanding = 0
        /// Values that arrived while no call waited, oldest first.
        @usableFromInline var kept = RingBuffer<Input>()
        /// Calls made before the subscription and ended by a value that came before it: as in Combine, they are
        /// still requested (one value each) when the subscription arrives.
        @usableFromInline var endedBeforeSubscription = 0

        @inlinable init() {}

        /// What a `next()` call returns once the stream is over (nil after the end, the failure exactly once), or
        /// nil (the outer optional) while it goes on.
        @inlinable
        mutating func endResult() -> Result<Input, Failure>?? {
            switch status {
            case .ended:
                return .some(nil)
            case .failed(let error):
                status = .ended
                return .some(.failure(error))
            case .awaitingSubscription, .subscribed:
                return nil
            }
        }

        /// The demand to request now, counted as outstanding at once: every call that needs a value has one coming,
        /// and with a window, the window is filled again once half of it or less is requested or kept ahead.
        @inlinable
        mutating func topUp(window: Int) -> (Subscription, Subscribers.Demand)? {
            guard case .subscribed(let subscription) = status else { return nil }
            let claims = waiting.count + unparked
            let ahead = outstanding + kept.count
            let target: Int
            if window == 1 {
                target = claims
            } else {
                guard ahead < claims || ahead <= window / 2 else { return nil }
                target = Swift.max(window, claims)
            }
            guard target > ahead else { return nil }
            outstanding += target - ahead
            return (subscription, .max(target - ahead))
        }
    }

    @usableFromInline let state: LockedBox<State>
    @usableFromInline let window: Int

    /// - Parameter window: 1 for Combine's `.max(1)` per call; more to request that many values ahead.
    @inlinable
    init(window: Int) {
        precondition(window > 0, "AsyncValueSubscriber: the window is at least one value")
        self.window = window
        state = LockedBox(tracking: State())
    }

    // MARK: Subscriber

    @inlinable
    func receive(subscription: Subscription) {
        let (accepted, pending) = state.withCriticalSection { state -> (Bool, Subscribers.Demand) in
            guard case .awaitingSubscription = state.status else { return (false, .none) }
            state.status = .subscribed(subscription)
            // The calls parked before the subscription arrived are requested at once, together (with those a value
            // before the subscription ended); nothing is requested before the first call.
            var demand = Subscribers.Demand.none
            if !state.waiting.isEmpty, let (_, forWaiting) = state.topUp(window: window) { demand = forWaiting }
            let ended = state.endedBeforeSubscription
            state.endedBeforeSubscription = 0
            state.outstanding += ended
            return (true, demand + ended)
        }
        CalloutCheck.assertNoLockHeld("AsyncValueSubscriber answering its subscription")
        if !accepted {
            subscription.cancel()
        } else if pending != .none {
            subscription.request(pending)
        }
    }

    @usableFromInline
    enum ValueAction {
        case deliver(Continuation)
        case kept
        case endWaiting([Continuation])
        case unrequested
    }

    @inlinable
    func receive(_ input: Input) -> Subscribers.Demand {
        let action = state.withCriticalSection { state -> ValueAction in
            guard case .subscribed = state.status else {
                // Before the subscription or after the end: the parked calls end with nil (before the subscription,
                // their demand is still requested when it arrives, as in Combine).
                if case .awaitingSubscription = state.status { state.endedBeforeSubscription += state.waiting.count }
                defer { state.waiting = [] }
                return .endWaiting(state.waiting)
            }
            guard state.outstanding > 0 else { return .unrequested }
            state.outstanding -= 1
            if !state.waiting.isEmpty {
                return .deliver(state.waiting.removeFirst())
            }
            state.kept.append(input)
            return .kept
        }
        // Resumed outside the lock: resuming may run the awaiting task at once on another thread.
        switch action {
        case .deliver(let continuation):
            continuation.resume(returning: Handoff(result: .success(input)))
        case .kept:
            break
        case .endWaiting(let continuations):
            for continuation in continuations { continuation.resume(returning: Handoff(result: nil)) }
        case .unrequested:
            preconditionFailure("AsyncPublisher: received a value that was not requested")
        }
        return .none
    }

    // The first completion ends the stream: the values kept are still handed out first; then the oldest waiting call
    // gets the completion (a failure is kept for the next call when none waits; calls wait only when no value is
    // kept), the others get nil. A completion after the end only ends the calls still waiting.
    @inlinable
    func receive(completion: Subscribers.Completion<Failure>) {
        let (waiting, deliversCompletion, released) = state.withCriticalSection {
            state -> ([Continuation], Bool, Subscription?) in
            let waiting = state.waiting
            state.waiting = []
            switch state.status {
            case .awaitingSubscription, .subscribed:
                var released: Subscription?
                if case .subscribed(let subscription) = state.status { released = subscription }
                state.outstanding = 0
                if waiting.isEmpty, case .failure(let error) = completion {
                    state.status = .failed(error)
                } else {
                    state.status = .ended
                }
                return (waiting, true, released)
            case .failed, .ended:
                return (waiting, false, nil)
            }
        }
        withExtendedLifetime(released) {}
        for (index, continuation) in waiting.enumerated() {
            guard index == 0, deliversCompletion, case .failure(let error) = completion else {
                continuation.resume(returning: Handoff(result: nil))
                continue
            }
            continuation.resume(returning: Handoff(result: .failure(error)))
        }
    }

    // MARK: Cancellable

    /// Cancels the upstream (once) and ends the sequence: the values kept are dropped, every waiting `next()` returns
    /// nil, as does every later call. A subscription arriving later is cancelled.
    @inlinable
    func cancel() {
        let (waiting, subscription, dropped) = state.withCriticalSection {
            state -> ([Continuation], Subscription?, RingBuffer<Input>) in
            let waiting = state.waiting
            state.waiting = []
            state.outstanding = 0
            let dropped = state.kept.takeAll()
            defer { state.status = .ended }
            if case .subscribed(let subscription) = state.status { return (waiting, subscription, dropped) }
            return (waiting, nil, dropped)
        }
        // Values nobody took are released here, with no lock held (their deinit is user code).
        withExtendedLifetime(dropped) {}
        CalloutCheck.assertNoLockHeld("AsyncValueSubscriber cancelling its subscription")
        subscription?.cancel()
        for continuation in waiting { continuation.resume(returning: Handoff(result: nil)) }
    }

    // MARK: Awaiting

    /// Asks the upstream for `demand`, if any, with no lock held (the one place every `next()` path and the window's
    /// refill request from).
    @inlinable
    func request(_ pending: (Subscription, Subscribers.Demand)?) {
        guard let (subscription, demand) = pending else { return }
        CalloutCheck.assertNoLockHeld("AsyncValueSubscriber requesting values")
        subscription.request(demand)
    }

    /// What a `next()` call does after its first critical section.
    @usableFromInline
    enum Start {
        /// Return this at once: a value kept (the window's prefetch, refilled first), or the end.
        case ready(Result<Input, Failure>?)
        /// The call asked for its value (it counts in `unparked`): take it from `kept` or park, ``take(requested:)``.
        case requested
        /// No subscription yet: park; the call is requested when the subscription arrives.
        case wait
    }

    /// The first step of a `next()` call, in one critical section: take a value kept, or the end, or count the call
    /// as needing a value and request what it needs (`.max(1)` at a window of 1, as Combine requests in `next()`).
    /// The request is made after unlocking, before returning: a synchronous upstream delivers during it, and the value
    /// then waits in `kept` for ``takeKept()``. Not `async`: the caller needs no cancellation handler for it.
    @inlinable
    func start() -> Start {
        let window = window
        let (start, pending) = state.withCriticalSection {
            state -> (Start, (Subscription, Subscribers.Demand)?) in
            if let value = state.kept.popFirst() { return (.ready(.success(value)), state.topUp(window: window)) }
            if let end = state.endResult() { return (.ready(end), nil) }
            guard case .subscribed = state.status else { return (.wait, nil) }
            state.unparked += 1
            return (.requested, state.topUp(window: window))
        }
        request(pending)
        return start
    }

    /// After ``start()`` returned `.requested`: the value the call's request brought, if it is already kept (a
    /// synchronous upstream), without suspending; nil if the call must park with ``take(requested:)``.
    @inlinable
    func takeKept() -> Input? {
        state.withCriticalSection { state -> Input? in
            guard let value = state.kept.popFirst() else { return nil }
            state.unparked -= 1
            return value
        }
    }

    /// The next value (`.success`), the failure (`.failure`, once, after the values that arrived before it), or nil
    /// once the stream has ended or was cancelled.
    @inlinable
    func next() async -> Result<Input, Failure>? {
        switch start() {
        case .ready(let result):
            return result
        case .requested:
            if let value = takeKept() { return .success(value) }
            return await take(requested: true)
        case .wait:
            return await take(requested: false)
        }
    }

    @usableFromInline
    enum ParkAction {
        case resume(Result<Input, Failure>?)
        case parked((Subscription, Subscribers.Demand)?)
    }

    // Parks the call until a value, the end or a cancel comes: `requested` when ``start()`` counted it in `unparked`
    // (its demand is out), otherwise it parks before the subscription (requested when it arrives). The value may
    // already wait in `kept`. Parking tops the demand up again: another call may have taken the value this call's
    // request brought (copies of one iterator share it), and every parked call needs one coming.
    @inlinable
    func take(requested: Bool) async -> Result<Input, Failure>? {
        let window = window
        let handoff = await withUnsafeContinuation { (continuation: Continuation) in
            let action = state.withCriticalSection { state -> ParkAction in
                if requested { state.unparked -= 1 }
                if let value = state.kept.popFirst() { return .resume(.success(value)) }
                if let end = state.endResult() { return .resume(end) }
                state.waiting.append(continuation)
                return .parked(state.topUp(window: window))
            }
            switch action {
            case .resume(let result):
                continuation.resume(returning: Handoff(result: result))
            case .parked(let pending):
                request(pending)
            }
        }
        return handoff.result
    }
}
