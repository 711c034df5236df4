import UntangleSync

/// The subscriber behind ``AsyncPublisher``, ``AsyncThrowingPublisher`` and `Future.value`: it turns "await the next
/// value" into one `.max(1)` request, and parks the awaiting task in a continuation until the value, the completion or
/// a cancellation arrives. Several `next()` calls may wait at once (copies of one iterator used from several tasks);
/// they are answered in the order they were made, as in Combine.
///
/// ```swift
/// let subscriber = AsyncValueSubscriber<Int, Never>()
/// Just(1).subscribe(subscriber)
/// let first = await subscriber.next()   // .success(1); the next call returns nil
/// ```
///
/// **Demand:** `.max(1)` per ``next()`` call that finds no completion waiting; calls made before the subscription
/// arrives are requested together when it does. A value delivered during the call's own request (a synchronous
/// upstream) is returned without suspending the task. A value the upstream sends when no call is waiting (more than was
/// requested) stops the program, as in Combine; a value sent before the subscription or after the completion ends
/// every waiting call with nil instead.
/// **Thread safety:** `receive`, ``cancel()`` and ``next()`` may be called from any thread or task, concurrently. The
/// lock is never held across an await or a callout: continuations are resumed and the upstream is asked or cancelled
/// after unlocking.
final class AsyncValueSubscriber<Input, Failure: Error>: Subscriber, Cancellable, @unchecked Sendable {
    typealias Continuation = UnsafeContinuation<Handoff, Never>

    // A value crosses from the delivering thread to the awaiting task here, as in any publisher-to-async bridge: the
    // publisher hands it over and the task owns it from then on. Combine's outputs need not be Sendable, so the
    // hand-over is unchecked, as for Apple's AsyncPublisher.
    struct Handoff: @unchecked Sendable {
        let result: Result<Input, Failure>?
    }

    private enum Status {
        /// `next()` calls made so far, to request when the subscription arrives.
        case awaitingSubscription(Subscribers.Demand)
        case subscribed(Subscription)
        /// The upstream completed with a failure nobody has received yet.
        case failed(Failure)
        /// Finished, cancelled, or the failure was handed out: every further `next()` returns nil.
        case ended
    }

    private struct State {
        var status = Status.awaitingSubscription(.none)
        /// The calls waiting for a value, oldest first.
        var waiting: [Continuation] = []
        /// `next()` calls that requested a value and have not parked yet (they look into `ready` first).
        var unparked = 0
        /// Values that arrived for an unparked call (usually during its own `request`, from a synchronous upstream).
        var ready = RingBuffer<Input>()

        /// What a `next()` call returns once the stream is over (nil after the end, the failure exactly once), or
        /// nil (the outer optional) while it goes on.
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
    }

    private let state = LockedBox(tracking: State())

    init() {}

    // MARK: Subscriber

    func receive(subscription: Subscription) {
        // The `next()` calls parked before the subscription arrived are requested at once, together.
        let (accepted, pending) = state.withCriticalSection { state -> (Bool, Subscribers.Demand) in
            guard case .awaitingSubscription(let pending) = state.status else { return (false, .none) }
            state.status = .subscribed(subscription)
            return (true, pending)
        }
        CalloutCheck.assertNoLockHeld("AsyncValueSubscriber answering its subscription")
        if !accepted {
            subscription.cancel()
        } else if pending != .none {
            subscription.request(pending)
        }
    }

    private enum ValueAction {
        case deliver(Continuation)
        case kept
        case endWaiting([Continuation])
        case unrequested
    }

    func receive(_ input: Input) -> Subscribers.Demand {
        let action = state.withCriticalSection { state -> ValueAction in
            guard case .subscribed = state.status else {
                // Before the subscription or after the end: the parked calls end with nil (the demand they made
                // before the subscription stays, to be requested when it arrives).
                defer { state.waiting = [] }
                return .endWaiting(state.waiting)
            }
            if !state.waiting.isEmpty {
                return .deliver(state.waiting.removeFirst())
            }
            // A call that asked and has not parked yet takes it without suspending.
            guard state.unparked > state.ready.count else { return .unrequested }
            state.ready.append(input)
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

    // The first completion ends the stream: the oldest waiting call gets it (a failure is kept for the next call
    // when none waits), the others get nil. A completion after the end only ends the calls still waiting.
    func receive(completion: Subscribers.Completion<Failure>) {
        let (waiting, deliversCompletion, released) = state.withCriticalSection {
            state -> ([Continuation], Bool, Subscription?) in
            let waiting = state.waiting
            state.waiting = []
            switch state.status {
            case .awaitingSubscription, .subscribed:
                var released: Subscription?
                if case .subscribed(let subscription) = state.status { released = subscription }
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

    /// Cancels the upstream (once) and ends the sequence: every waiting `next()` returns nil, as does every later
    /// call. A subscription arriving later is cancelled.
    func cancel() {
        let (waiting, subscription, dropped) = state.withCriticalSection {
            state -> ([Continuation], Subscription?, RingBuffer<Input>) in
            let waiting = state.waiting
            state.waiting = []
            let dropped = state.ready.takeAll()
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

    private enum NextAction {
        case resume(Result<Input, Failure>?)
        case request(Subscription)
        case wait
    }

    /// The next value (`.success`), the failure (`.failure`, once), or nil once the stream has ended or was cancelled.
    func next() async -> Result<Input, Failure>? {
        // The fast path: ask for one value without suspending. A synchronous upstream (a sequence, `Just`, a subject
        // sending from inside the request) delivers during `request`; the value waits in `ready` and is returned
        // without a continuation, which is what makes `for await` over a synchronous chain cheap. The demand is the
        // same as on the slow path: `.max(1)` per call.
        let first = state.withCriticalSection { state -> NextAction in
            if let value = state.ready.popFirst() { return .resume(.success(value)) }
            if let end = state.endResult() { return .resume(end) }
            guard case .subscribed(let subscription) = state.status else { return .wait }
            state.unparked += 1
            return .request(subscription)
        }
        switch first {
        case .resume(let result):
            return result
        case .request(let subscription):
            CalloutCheck.assertNoLockHeld("AsyncValueSubscriber requesting the next value")
            subscription.request(.max(1))
            return await take(requested: true)
        case .wait:
            return await take(requested: false)
        }
    }

    // Takes the value a call asked for (`requested`: it counts in `unparked`) or, before the subscription, parks the
    // call and counts it in the demand requested when the subscription arrives. The value may already wait in
    // `ready`; otherwise the call parks, and whoever delivers resumes it.
    private func take(requested: Bool) async -> Result<Input, Failure>? {
        if requested {
            let ready = state.withCriticalSection { state -> Input? in
                guard let value = state.ready.popFirst() else { return nil }
                state.unparked -= 1
                return value
            }
            if let ready { return .success(ready) }
        }
        let handoff = await withUnsafeContinuation { (continuation: Continuation) in
            let action = state.withCriticalSection { state -> NextAction in
                if requested {
                    state.unparked -= 1
                    if let value = state.ready.popFirst() { return .resume(.success(value)) }
                }
                if let end = state.endResult() { return .resume(end) }
                state.waiting.append(continuation)
                if requested { return .wait }
                switch state.status {
                case .awaitingSubscription(let pending):
                    state.status = .awaitingSubscription(pending + 1)
                    return .wait
                case .subscribed(let subscription):
                    // Parked before the subscription was known: ask now (the call was not counted anywhere).
                    return .request(subscription)
                case .ended, .failed:
                    preconditionFailure("AsyncValueSubscriber: an ended stream is answered by endResult()")
                }
            }
            switch action {
            case .resume(let result):
                continuation.resume(returning: Handoff(result: result))
            case .request(let subscription):
                CalloutCheck.assertNoLockHeld("AsyncValueSubscriber requesting the next value")
                subscription.request(.max(1))
            case .wait:
                break
            }
        }
        return handoff.result
    }
}
