import Untangle
import UntangleSync

/// Building blocks shared by ``Single``, ``Maybe`` and ``Completable``: the promise-based constructors, the
/// sequential composition behind `flatMap`/`andThen`, and the async bridge behind `value`.
///
/// **Demand:** every piece is built on `Publishers.Create`, so values wait for the subscriber's demand.
/// **Thread safety:** promises and everything else may be called from any thread.
@usableFromInline
enum TraitSupport {
    /// A publisher that runs `body` per subscription with a promise: `.success(value?)` sends the value (if any)
    /// and finishes, `.failure` fails; calls after the first are ignored.
    @inlinable
    static func promised<Output, Failure: Error>(
        _ body: @escaping (@escaping TraitPromise<Output?, Failure>) -> any Cancellable
    ) -> AnyPublisher<Output, Failure> {
        AnyPublisher.create { subscriber in
            // The first call wins as a whole: without the claim, two racing calls could each send their value
            // before either completion.
            let claimed = LockedBox(tracking: false)
            return body { result in
                let first = claimed.withCriticalSection { claimed -> Bool in
                    defer { claimed = true }
                    return !claimed
                }
                guard first else { return }
                switch result {
                case .success(let value):
                    if let value {
                        subscriber.send(value)
                    }
                    subscriber.send(completion: .finished)
                case .failure(let error):
                    subscriber.send(completion: .failure(error))
                }
            }
        }
    }

    /// `promised` for a constructor whose promise carries a `Value` of its own: `value` turns it into what is sent
    /// (nil: nothing, just `.finished`).
    @inlinable
    static func promised<Value, Output, Failure: Error>(
        _ body: @escaping (@escaping TraitPromise<Value, Failure>) -> any Cancellable,
        value: @escaping @Sendable (Value) -> Output?
    ) -> AnyPublisher<Output, Failure> {
        promised { (promise: @escaping TraitPromise<Output?, Failure>) in
            body { promise($0.map(value)) }
        }
    }

    /// `body` for a constructor whose work cannot be stopped (nothing to cancel).
    @inlinable
    static func uncancellable<Value, Failure: Error>(
        _ attemptToFulfill: @escaping (@escaping TraitPromise<Value, Failure>) -> Void
    ) -> (@escaping TraitPromise<Value, Failure>) -> any Cancellable {
        { promise in
            attemptToFulfill(promise)
            return AnyCancellable {}
        }
    }

    // The conversion holds back the first value until the upstream finishes (only then is it known that no second
    // one follows); the stored value is per subscription (`TraitCheck` makes a fresh one each time) and is touched
    // only from the serialized upstream signals.
    /// The checking step behind `asSingle` and `asMaybe`: a second value fails with
    /// ``TraitViolation/moreThanOneValue``; finishing empty fails with ``TraitViolation/noValue`` when
    /// `valueRequired`, else finishes empty; upstream failures go through `mapFailure`.
    static func atMostOneValue<Upstream: Publisher, E: Error>(
        _ upstream: Upstream, name: String, valueRequired: Bool,
        mapFailure: @escaping (Upstream.Failure) -> E, violation: @escaping (TraitViolation) -> E
    ) -> TraitCheck<Upstream, Upstream.Output, E> {
        TraitCheck(upstream: upstream, name: name, policy: .unlimitedOnFirstRequest) {
            let stored = OperatorVariable<Upstream.Output?>(nil)
            return (
                { value in
                    guard stored.value == nil else { return .fail(violation(.moreThanOneValue)) }
                    stored.value = value
                    return .absorb
                },
                { completion in
                    defer { stored.value = nil }
                    switch completion {
                    case .finished:
                        if stored.value == nil, valueRequired { return (nil, .failure(violation(.noValue))) }
                        return (stored.value, .finished)
                    case .failure(let error):
                        return (nil, .failure(mapFailure(error)))
                    }
                }
            )
        }
    }

    /// The checking step behind `asCompletable`: any value fails with ``TraitViolation/unexpectedValue``
    /// (cancelling the upstream); `.unlimited` is requested at subscription, since a completable's subscriber need
    /// not request anything; upstream failures go through `mapFailure`.
    static func noValue<Upstream: Publisher, E: Error>(
        _ upstream: Upstream, mapFailure: @escaping (Upstream.Failure) -> E,
        violation: @escaping (TraitViolation) -> E
    ) -> TraitCheck<Upstream, Never, E> {
        TraitCheck(upstream: upstream, name: "AsCompletable", policy: .unlimitedAtSubscriptionFinishingWithoutDemand) {
            (
                { _ in .fail(violation(.unexpectedValue)) },
                { completion in
                    switch completion {
                    case .finished: return (nil, .finished)
                    case .failure(let error): return (nil, .failure(mapFailure(error)))
                    }
                }
            )
        }
    }

    /// Subscribes `first`; when it sends a value, `next(value)` decides the publisher to continue with; when it
    /// finishes, `onEmpty()` does (if no value came; nil: finish). `next == nil` is for publishers without values.
    /// Failures of either are forwarded.
    // Inlinable, so that a trait's `flatMap` chain is built where its types are known (see `Single.flatMap`).
    @inlinable
    static func chain<First: Publisher, Output>(
        _ first: First, next: ((First.Output) -> AnyPublisher<Output, First.Failure>)?,
        onEmpty: @escaping () -> AnyPublisher<Output, First.Failure>?
    ) -> AnyPublisher<Output, First.Failure> {
        AnyPublisher.create { subscriber in
            let slots = TraitChainSlots()
            first.subscribe(TraitChainFirst(subscriber: subscriber, slots: slots, next: next, onEmpty: onEmpty))
            return slots
        }
    }

    /// Awaits `publisher`'s completion; returns the last value it sent (nil if none) or throws its failure.
    /// Throws `CancellationError` if the task is cancelled first (the subscription is cancelled).
    static func awaitCompletion<P: Publisher>(of publisher: P) async throws -> P.Output? where P.Output: Sendable {
        let subscriber = AwaitingSubscriber<P.Output, P.Failure>()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                if subscriber.start(continuation) {
                    publisher.subscribe(subscriber)
                }
            }
        } onCancel: {
            subscriber.cancel()
        }
    }
}

/// The publisher behind the traits' conversions (`asSingle`, `asMaybe`, `asCompletable`): a reducer
/// (`ReducerSubscription`) over `upstream`, with fresh per-subscription state from `makeSteps` for every subscriber.
///
/// ```swift
/// let checked = TraitCheck(upstream: source, name: "AsSingle", policy: .unlimitedOnFirstRequest) { (onValue, onEnd) }
/// ```
///
/// **Demand:** per the given `ReducerUpstreamDemand`.
/// **Thread safety:** as `ReducerSubscription`: `request`/`cancel` from any thread, signals serialized.
struct TraitCheck<Upstream: Publisher, Output, Failure: Error>: Publisher {
    typealias Steps = (
        onValue: (Upstream.Output) -> ReducerStep<Output, Failure>,
        onCompletion: (Subscribers.Completion<Upstream.Failure>) -> (Output?, Subscribers.Completion<Failure>)
    )

    let upstream: Upstream
    let name: String
    let policy: ReducerUpstreamDemand
    let makeSteps: () -> Steps

    func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
        let steps = makeSteps()
        upstream.subscribe(
            ReducerSubscription(
                downstream: subscriber, name: name, policy: policy, reflection: .none, onValue: steps.onValue,
                onCompletion: steps.onCompletion))
    }
}

/// The subscriber behind ``TraitSupport/awaitCompletion(of:)``: resumes its continuation exactly once.
private final class AwaitingSubscriber<Input: Sendable, Failure: Error>: Subscriber, Cancellable,
    @unchecked Sendable
{
    private struct State {
        var continuation: CheckedContinuation<Input?, any Error>?
        var subscription: Subscription?
        var value: Input?
        var cancelled = false
        var done = false
    }

    private let state = LockedBox(tracking: State())

    /// Stores the continuation; returns false (after resuming it with `CancellationError`) if already cancelled.
    func start(_ continuation: CheckedContinuation<Input?, any Error>) -> Bool {
        let cancelled = state.withCriticalSection { state -> Bool in
            if state.cancelled { return true }
            state.continuation = continuation
            return false
        }
        if cancelled {
            continuation.resume(throwing: CancellationError())
        }
        return !cancelled
    }

    func receive(subscription: Subscription) {
        let keep = state.withCriticalSection { state -> Bool in
            guard !state.cancelled, !state.done, state.subscription == nil else { return false }
            state.subscription = subscription
            return true
        }
        CalloutCheck.assertNoLockHeld("awaiting a publisher")
        if keep {
            subscription.request(.unlimited)
        } else {
            subscription.cancel()
        }
    }

    func receive(_ input: Input) -> Subscribers.Demand {
        state.withCriticalSection { $0.value = input }
        return .none
    }

    func receive(completion: Subscribers.Completion<Failure>) {
        let (continuation, value) = state.withCriticalSection {
            state -> (CheckedContinuation<Input?, any Error>?, Input?) in
            state.done = true
            state.subscription = nil
            defer { state.continuation = nil }
            return (state.continuation, state.value)
        }
        switch completion {
        case .finished:
            continuation?.resume(returning: value)
        case .failure(let error):
            continuation?.resume(throwing: error)
        }
    }

    func cancel() {
        let (continuation, subscription) = state.withCriticalSection {
            state -> (CheckedContinuation<Input?, any Error>?, Subscription?) in
            state.cancelled = true
            defer {
                state.continuation = nil
                state.subscription = nil
            }
            return (state.continuation, state.subscription)
        }
        CalloutCheck.assertNoLockHeld("cancelling an awaited publisher")
        subscription?.cancel()
        continuation?.resume(throwing: CancellationError())
    }
}
