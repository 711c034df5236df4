import Untangle

/// A publisher that promises, in its type, exactly one value followed by `.finished`, or a failure. RxSwift's
/// `Single`.
///
/// Every way to make one keeps the promise: the constructors, ``Untangle/Publisher/asSingle()`` (which checks any publisher
/// and fails with ``TraitViolation`` if it breaks the promise), and the operators below, which return a `Single`
/// again.
///
/// ```swift
/// let user = Single<User, APIError> { promise in
///     api.fetchUser(id) { result in promise(result) }
/// }
/// let name = try await user.map(\.name).value
/// ```
///
/// **Demand:** the value waits for the subscriber's demand; `.finished` follows it without demand; a failure needs
/// none.
/// **Thread safety:** subscribe from any thread; promises may be fulfilled from any thread (the first call wins);
/// `request` and `cancel` from any thread; signals are serialized.
public struct Single<Output, Failure: Error>: Publisher {
    // Inlinable construction, `receive`, `map` and `flatMap`: the chain is erased where its types are known, so
    // each eraser subscribes through code specialized for its publisher (see AnyPublisher).
    @usableFromInline let upstream: AnyPublisher<Output, Failure>

    /// Wraps a publisher that already keeps the promise (internal: callers outside must go through `asSingle()`).
    @inlinable
    init<P: Publisher>(unchecked publisher: P) where P.Output == Output, P.Failure == Failure {
        upstream = publisher.eraseToAnyPublisher()
    }

    /// A single that sends `value`, then finishes.
    ///
    /// ```swift
    /// let answer = Single<Int, Never>(42)
    /// ```
    @inlinable
    public init(_ value: Output) {
        self.init(unchecked: Publishers.SetFailureType<Just<Output>, Failure>(upstream: Just(value)))
    }

    /// A single that fails with `error`.
    ///
    /// ```swift
    /// let failed = Single<Int, MyError>(error: .offline)
    /// ```
    public init(error: Failure) {
        self.init(unchecked: Fail(error: error))
    }

    /// A single whose work starts for each subscription and ends with one call of `promise` (later calls are
    /// ignored).
    ///
    /// ```swift
    /// let data = Single<Data, Error> { promise in
    ///     URLSession.shared.dataTask(with: url) { data, _, error in
    ///         promise(data.map { .success($0) } ?? .failure(error!))
    ///     }.resume()
    /// }
    /// ```
    @inlinable
    public init(_ attemptToFulfill: @escaping (@escaping TraitPromise<Output, Failure>) -> Void) {
        self.init(unchecked: TraitSupport.promised(TraitSupport.uncancellable(attemptToFulfill), value: { $0 }))
    }

    /// A single whose work starts for each subscription and can be stopped: `body` returns what cancels it (run
    /// once, on cancel or after the promise was fulfilled).
    ///
    /// ```swift
    /// let request = Single<Data, Error>.create { promise in
    ///     let task = session.dataTask(with: url) { data, _, error in promise(...) }
    ///     task.resume()
    ///     return AnyCancellable { task.cancel() }
    /// }
    /// ```
    @inlinable
    public static func create(
        _ body: @escaping (@escaping TraitPromise<Output, Failure>) -> any Cancellable
    ) -> Single {
        Single(unchecked: TraitSupport.promised(body, value: { $0 }))
    }

    /// Attaches a subscriber.
    @inlinable
    public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
        upstream.subscribe(subscriber)
    }

    /// Transforms the value.
    ///
    /// ```swift
    /// let length = Single<String, Never>("abc").map(\.count)
    /// ```
    @inlinable
    public func map<T>(_ transform: @escaping (Output) -> T) -> Single<T, Failure> {
        return Single<T, Failure>(unchecked: upstream.map(transform))
    }

    /// Transforms the value with a closure that may throw; a throw fails the single.
    ///
    /// ```swift
    /// let parsed = text.tryMap { try JSONDecoder().decode(User.self, from: Data($0.utf8)) }
    /// ```
    public func tryMap<T>(_ transform: @escaping (Output) throws -> T) -> Single<
        T, any Error
    > {
        return Single<T, any Error>(unchecked: upstream.tryMap(transform))
    }

    /// Transforms the failure.
    ///
    /// ```swift
    /// let wrapped = single.mapError { AppError.network($0) }
    /// ```
    public func mapError<E: Error>(_ transform: @escaping (Failure) -> E)
        -> Single<Output, E>
    {
        return Single<Output, E>(unchecked: upstream.mapError(transform))
    }

    /// Continues with the single that `transform` makes from the value.
    ///
    /// ```swift
    /// let avatar = fetchUser(id).flatMap { user in fetchImage(user.avatarURL) }
    /// ```
    @inlinable
    public func flatMap<T>(_ transform: @escaping (Output) -> Single<T, Failure>)
        -> Single<T, Failure>
    {
        return Single<T, Failure>(
            unchecked: TraitSupport.chain(upstream, next: { transform($0).eraseToAnyPublisher() }, onEmpty: { nil }))
    }

    /// Replaces a failure with the single that `handler` makes from it.
    ///
    /// ```swift
    /// let user = fetchUser(id).catch { _ in Single(User.guest) }
    /// ```
    public func `catch`<E: Error>(
        _ handler: @escaping (Failure) -> Single<Output, E>
    ) -> Single<Output, E> {
        return Single<Output, E>(unchecked: upstream.catch(handler))
    }

    /// Replaces a failure with a value.
    ///
    /// ```swift
    /// let count = fetchCount().replaceError(with: 0)
    /// ```
    public func replaceError(with value: Output) -> Single<Output, Never> {
        Single<Output, Never>(unchecked: upstream.catch { _ in Just(value) })
    }

    /// This single as a ``Maybe`` (a single is a maybe that always has its value).
    public func asMaybe() -> Maybe<Output, Failure> {
        Maybe(unchecked: upstream)
    }

    /// This single as a ``Completable``: the value is ignored.
    public func asCompletable() -> Completable<Failure> {
        Completable(unchecked: upstream.ignoreOutput())
    }
}

extension Single where Output: Sendable {
    /// Subscribes and waits for the value; throws the failure, or `CancellationError` if the task is cancelled
    /// first (the subscription is then cancelled).
    ///
    /// ```swift
    /// let user = try await fetchUser(id).value
    /// ```
    public var value: Output {
        get async throws {
            guard let value = try await TraitSupport.awaitCompletion(of: upstream) else {
                // Unreachable by construction (every Single sends its value before finishing); reported, not trapped.
                throw TraitViolation.noValue
            }
            return value
        }
    }
}

extension Publisher {
    /// Checks that this publisher sends exactly one value then finishes, and makes that visible in the type.
    ///
    /// The result fails with ``TraitViolation/noValue`` if this publisher finishes without a value, and with
    /// ``TraitViolation/moreThanOneValue`` (cancelling this publisher) when a second value arrives; this
    /// publisher's own failures pass through unchanged. The value is delivered when this publisher finishes.
    ///
    /// ```swift
    /// let single = URLSession.shared.dataTaskPublisher(for: url).map(\.data).asSingle()
    /// ```
    ///
    /// **Demand:** requests `.unlimited` from this publisher once the subscriber requests anything (to see a
    /// second value); the value waits for the subscriber's demand.
    /// **Thread safety:** `request` and `cancel` from any thread; signals are serialized.
    public func asSingle() -> Single<Output, any Error> {
        Single(
            unchecked: TraitSupport.atMostOneValue(
                self, name: "AsSingle", valueRequired: true, mapFailure: { $0 as any Error },
                violation: { $0 as any Error }))
    }

    /// Like ``asSingle()``, keeping this publisher's failure type: `violation` turns a broken promise into it.
    ///
    /// ```swift
    /// let single = source.asSingle { _ in APIError.unexpectedResponse }
    /// ```
    ///
    /// **Demand:** as ``asSingle()``.
    /// **Thread safety:** as ``asSingle()``.
    public func asSingle(violation: @escaping (TraitViolation) -> Failure)
        -> Single<Output, Failure>
    {
        return Single(
            unchecked: TraitSupport.atMostOneValue(
                self, name: "AsSingle", valueRequired: true, mapFailure: { $0 }, violation: violation))
    }
}
