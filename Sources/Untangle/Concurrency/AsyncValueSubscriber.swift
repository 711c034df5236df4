import UntangleSync

/// The subscriber behind ``AsyncPublisher``, ``AsyncThrowingPublisher`` and `Future.value`: it turns "await the next
/// value" into one `.max(1)` request, and parks the awaiting task in a continuation until the value, the completion or
/// a cancellation arrives.
///
/// ```swift
/// let subscriber = AsyncValueSubscriber<Int, Never>()
/// Just(1).subscribe(subscriber)
/// let first = await subscriber.next()   // .success(1); the next call returns nil
/// ```
///
/// **Demand:** `.max(1)` per ``next()`` call that finds no completion waiting; values the upstream sends beyond that
/// (a misbehaving upstream) are dropped.
/// **Thread safety:** `receive`, ``cancel()`` and ``next()`` may be called from any thread or task. One ``next()`` at a
/// time (a second concurrent call stops the program, as for `AsyncStream`). The lock is never held across an await or
/// a callout: continuations are resumed and the upstream is asked or cancelled after unlocking.
final class AsyncValueSubscriber<Input, Failure: Error>: Subscriber, Cancellable, @unchecked Sendable {
    typealias Continuation = UnsafeContinuation<Handoff, Never>

    // A value crosses from the delivering thread to the awaiting task here, as in any publisher-to-async bridge: the
    // publisher hands it over and the task owns it from then on. Combine's outputs need not be Sendable, so the
    // hand-over is unchecked, as for Apple's AsyncPublisher.
    struct Handoff: @unchecked Sendable {
        let result: Result<Input, Failure>?
    }

    private enum Status {
        case awaitingSubscription
        case subscribed(Subscription)
        /// The upstream completed with a failure nobody has received yet.
        case failed(Failure)
        /// Finished, cancelled, or the failure was handed out: every further `next()` returns nil.
        case ended
    }

    private struct State {
        var status = Status.awaitingSubscription
        var waiting: Continuation?
    }

    private let state = LockedBox(tracking: State())

    init() {}

    // MARK: Subscriber

    func receive(subscription: Subscription) {
        // A parked `next()` asks as soon as the subscription exists.
        let (accepted, askNow) = state.withCriticalSection { state -> (Bool, Bool) in
            guard case .awaitingSubscription = state.status else { return (false, false) }
            state.status = .subscribed(subscription)
            return (true, state.waiting != nil)
        }
        CalloutCheck.assertNoLockHeld("AsyncValueSubscriber answering its subscription")
        if !accepted {
            subscription.cancel()
        } else if askNow {
            subscription.request(.max(1))
        }
    }

    func receive(_ input: Input) -> Subscribers.Demand {
        let waiting = state.withCriticalSection { state -> Continuation? in
            guard case .subscribed = state.status else { return nil }
            defer { state.waiting = nil }
            return state.waiting
        }
        // Resumed outside the lock: resuming may run the awaiting task at once on another thread.
        waiting?.resume(returning: Handoff(result: .success(input)))
        return .none
    }

    func receive(completion: Subscribers.Completion<Failure>) {
        let (waiting, released) = state.withCriticalSection { state -> (Continuation?, Subscription?) in
            guard case .subscribed(let subscription) = state.status else { return (nil, nil) }
            let waiting = state.waiting
            state.waiting = nil
            switch completion {
            case .finished:
                state.status = .ended
            case .failure(let error):
                // Handed to the parked `next()` now, or kept for the next call.
                state.status = waiting == nil ? .failed(error) : .ended
            }
            return (waiting, subscription)
        }
        withExtendedLifetime(released) {}
        switch completion {
        case .finished: waiting?.resume(returning: Handoff(result: nil))
        case .failure(let error): waiting?.resume(returning: Handoff(result: .failure(error)))
        }
    }

    // MARK: Cancellable

    /// Cancels the upstream (once) and ends the sequence: a parked `next()` returns nil, as does every later call.
    func cancel() {
        let (waiting, subscription) = state.withCriticalSection { state -> (Continuation?, Subscription?) in
            let waiting = state.waiting
            state.waiting = nil
            defer { state.status = .ended }
            if case .subscribed(let subscription) = state.status { return (waiting, subscription) }
            return (waiting, nil)
        }
        CalloutCheck.assertNoLockHeld("AsyncValueSubscriber cancelling its subscription")
        subscription?.cancel()
        waiting?.resume(returning: Handoff(result: nil))
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
                precondition(state.waiting == nil, "AsyncPublisher: next() called while another next() is waiting")
                switch state.status {
                case .ended:
                    return .resume(nil)
                case .failed(let error):
                    state.status = .ended
                    return .resume(.failure(error))
                case .awaitingSubscription:
                    state.waiting = continuation
                    return .wait
                case .subscribed(let subscription):
                    state.waiting = continuation
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
