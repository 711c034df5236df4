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
/// arrives are requested together when it does. A value the upstream sends when no call is waiting (more than was
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
            guard !state.waiting.isEmpty else { return .unrequested }
            return .deliver(state.waiting.removeFirst())
        }
        // Resumed outside the lock: resuming may run the awaiting task at once on another thread.
        switch action {
        case .deliver(let continuation):
            continuation.resume(returning: Handoff(result: .success(input)))
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
        let (waiting, subscription) = state.withCriticalSection { state -> ([Continuation], Subscription?) in
            let waiting = state.waiting
            state.waiting = []
            defer { state.status = .ended }
            if case .subscribed(let subscription) = state.status { return (waiting, subscription) }
            return (waiting, nil)
        }
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
        let handoff = await withUnsafeContinuation { (continuation: Continuation) in
            let action = state.withCriticalSection { state -> NextAction in
                switch state.status {
                case .ended:
                    return .resume(nil)
                case .failed(let error):
                    state.status = .ended
                    return .resume(.failure(error))
                case .awaitingSubscription(let pending):
                    state.waiting.append(continuation)
                    state.status = .awaitingSubscription(pending + 1)
                    return .wait
                case .subscribed(let subscription):
                    state.waiting.append(continuation)
                    return .request(subscription)
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
