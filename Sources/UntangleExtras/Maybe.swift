import Untangle

/// A publisher that promises, in its type, at most one value followed by `.finished`, or a failure. RxSwift's
/// `Maybe`.
///
/// ```swift
/// let cached = Maybe<User, Never> { promise in promise(.success(cache[id])) }   // nil: finishes empty
/// if let user = try await cached.value { show(user) }
/// ```
///
/// **Demand:** the value (if any) waits for the subscriber's demand; `.finished` follows without demand; a failure
/// needs none.
/// **Thread safety:** subscribe from any thread; promises may be fulfilled from any thread (the first call wins);
/// `request` and `cancel` from any thread; signals are serialized.
public struct Maybe<Output, Failure: Error>: Publisher {
    let upstream: AnyPublisher<Output, Failure>

    init<P: Publisher>(unchecked publisher: P) where P.Output == Output, P.Failure == Failure {
        upstream = publisher.eraseToAnyPublisher()
    }

    /// A maybe that sends `value`, then finishes.
    ///
    /// ```swift
    /// let some = Maybe<Int, Never>(1)
    /// ```
    public init(_ value: Output) {
        self.init(unchecked: Just(value).setFailureType(to: Failure.self))
    }

    /// A maybe that fails with `error`.
    ///
    /// ```swift
    /// let failed = Maybe<Int, MyError>(error: .offline)
    /// ```
    public init(error: Failure) {
        self.init(unchecked: Fail(error: error))
    }

    /// A maybe that finishes without a value.
    ///
    /// ```swift
    /// let none = Maybe<Int, Never>.empty
    /// ```
    public static var empty: Maybe {
        Maybe(unchecked: Empty())
    }

    /// A maybe whose work starts for each subscription and ends with one call of `promise`: `.success(nil)`
    /// finishes empty (later calls are ignored).
    ///
    /// ```swift
    /// let cached = Maybe<User, Never> { promise in promise(.success(cache[id])) }
    /// ```
    public init(_ attemptToFulfill: @escaping (@escaping TraitPromise<Output?, Failure>) -> Void) {
        self.init(unchecked: TraitSupport.promised(TraitSupport.uncancellable(attemptToFulfill)))
    }

    /// A maybe whose work can be stopped: `body` returns what cancels it (run once, on cancel or after the promise
    /// was fulfilled).
    ///
    /// ```swift
    /// let lookup = Maybe<User, Error>.create { promise in
    ///     let request = db.find(id) { promise($0) }
    ///     return AnyCancellable { request.cancel() }
    /// }
    /// ```
    public static func create(_ body: @escaping (@escaping TraitPromise<Output?, Failure>) -> any Cancellable)
        -> Maybe
    {
        Maybe(unchecked: TraitSupport.promised(body))
    }

    /// Attaches a subscriber.
    public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
        upstream.subscribe(subscriber)
    }

    /// Transforms the value, if any.
    ///
    /// ```swift
    /// let name = cachedUser.map(\.name)
    /// ```
    public func map<T>(_ transform: @escaping (Output) -> T) -> Maybe<T, Failure> {
        return Maybe<T, Failure>(unchecked: upstream.map(transform))
    }

    /// Transforms the failure.
    ///
    /// ```swift
    /// let wrapped = maybe.mapError { AppError.storage($0) }
    /// ```
    public func mapError<E: Error>(_ transform: @escaping (Failure) -> E)
        -> Maybe<Output, E>
    {
        return Maybe<Output, E>(unchecked: upstream.mapError(transform))
    }

    /// Continues with the maybe that `transform` makes from the value; finishes empty if there is none.
    ///
    /// ```swift
    /// let avatar = cachedUser.flatMap { cachedImage($0.avatarURL) }
    /// ```
    public func flatMap<T>(_ transform: @escaping (Output) -> Maybe<T, Failure>)
        -> Maybe<T, Failure>
    {
        return Maybe<T, Failure>(
            unchecked: TraitSupport.chain(upstream, next: { transform($0).eraseToAnyPublisher() }, onEmpty: { nil }))
    }

    /// Replaces a failure with the maybe that `handler` makes from it.
    ///
    /// ```swift
    /// let user = cachedUser.catch { _ in Maybe.empty }
    /// ```
    public func `catch`<E: Error>(
        _ handler: @escaping (Failure) -> Maybe<Output, E>
    ) -> Maybe<Output, E> {
        return Maybe<Output, E>(unchecked: upstream.catch(handler))
    }

    /// A ``Single`` that uses `value` when this maybe finishes empty.
    ///
    /// ```swift
    /// let user = cachedUser.replaceEmpty(with: .guest)
    /// ```
    public func replaceEmpty(with value: Output) -> Single<Output, Failure> {
        Single(
            unchecked: TraitSupport.chain(
                upstream, next: { Just($0).setFailureType(to: Failure.self).eraseToAnyPublisher() },
                onEmpty: {
                    Just(value).setFailureType(to: Failure.self).eraseToAnyPublisher()
                }))
    }

    /// This maybe as a ``Completable``: the value is ignored.
    public func asCompletable() -> Completable<Failure> {
        Completable(unchecked: upstream.ignoreOutput())
    }
}

extension Maybe where Output: Sendable {
    /// Subscribes and waits for the completion: the value, or nil if it finished empty; throws the failure, or
    /// `CancellationError` if the task is cancelled first (the subscription is then cancelled).
    ///
    /// ```swift
    /// if let user = try await cachedUser.value { show(user) }
    /// ```
    public var value: Output? {
        get async throws {
            try await TraitSupport.awaitCompletion(of: upstream)
        }
    }
}

extension Publisher {
    /// Checks that this publisher sends at most one value, and makes that visible in the type.
    ///
    /// The result fails with ``TraitViolation/moreThanOneValue`` (cancelling this publisher) when a second value
    /// arrives; this publisher's own failures pass through unchanged. The value is delivered when this publisher
    /// finishes.
    ///
    /// ```swift
    /// let firstMatch = results.filter(isMatch).asMaybe()
    /// ```
    ///
    /// **Demand:** requests `.unlimited` from this publisher once the subscriber requests anything; the value waits
    /// for the subscriber's demand.
    /// **Thread safety:** `request` and `cancel` from any thread; signals are serialized.
    public func asMaybe() -> Maybe<Output, any Error> {
        Maybe(
            unchecked: TraitSupport.atMostOneValue(
                self, name: "AsMaybe", valueRequired: false, mapFailure: { $0 as any Error },
                violation: { $0 as any Error }))
    }

    /// Like ``asMaybe()``, keeping this publisher's failure type: `violation` turns a broken promise into it.
    ///
    /// ```swift
    /// let maybe = source.asMaybe { _ in StoreError.duplicate }
    /// ```
    ///
    /// **Demand:** as ``asMaybe()``.
    /// **Thread safety:** as ``asMaybe()``.
    public func asMaybe(violation: @escaping (TraitViolation) -> Failure)
        -> Maybe<Output, Failure>
    {
        return Maybe(
            unchecked: TraitSupport.atMostOneValue(
                self, name: "AsMaybe", valueRequired: false, mapFailure: { $0 }, violation: violation))
    }
}
