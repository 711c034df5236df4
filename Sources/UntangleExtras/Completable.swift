import Untangle

/// A publisher that promises, in its type, no value: only `.finished` or a failure. RxSwift's `Completable`.
///
/// ```swift
/// let save = Completable<DBError> { promise in db.save(record) { promise($0) } }
/// try await save.andThen(Single(record.id)).value
/// ```
///
/// **Demand:** not needed: a completable sends only its completion, which needs no demand.
/// **Thread safety:** subscribe from any thread; promises may be fulfilled from any thread (the first call wins);
/// `cancel` from any thread.
public struct Completable<Failure: Error>: Publisher {
    /// A completable never sends a value.
    public typealias Output = Never

    let upstream: AnyPublisher<Never, Failure>

    init<P: Publisher>(unchecked publisher: P) where P.Output == Never, P.Failure == Failure {
        upstream = publisher.eraseToAnyPublisher()
    }

    /// A completable that finishes at once.
    ///
    /// ```swift
    /// let done = Completable<Never>.empty
    /// ```
    public static var empty: Completable {
        Completable(unchecked: Empty())
    }

    /// A completable that fails with `error`.
    ///
    /// ```swift
    /// let failed = Completable(error: MyError.offline)
    /// ```
    public init(error: Failure) {
        self.init(unchecked: Fail(error: error))
    }

    /// A completable whose work starts for each subscription and ends with one call of `promise` (later calls are
    /// ignored).
    ///
    /// ```swift
    /// let save = Completable<DBError> { promise in db.save(record) { promise($0) } }
    /// ```
    public init(_ attemptToFulfill: @escaping (@escaping TraitPromise<Void, Failure>) -> Void) {
        self.init(
            unchecked: TraitSupport.promised(TraitSupport.uncancellable(attemptToFulfill), value: { _ in Never?.none }))
    }

    /// A completable whose work can be stopped: `body` returns what cancels it (run once, on cancel or after the
    /// promise was fulfilled).
    ///
    /// ```swift
    /// let upload = Completable<Error>.create { promise in
    ///     let task = uploader.start { promise($0) }
    ///     return AnyCancellable { task.cancel() }
    /// }
    /// ```
    public static func create(_ body: @escaping (@escaping TraitPromise<Void, Failure>) -> any Cancellable)
        -> Completable
    {
        Completable(unchecked: TraitSupport.promised(body, value: { _ in Never?.none }))
    }

    /// Attaches a subscriber.
    public func receive<S: Subscriber>(subscriber: S) where S.Input == Never, S.Failure == Failure {
        upstream.subscribe(subscriber)
    }

    /// Transforms the failure.
    ///
    /// ```swift
    /// let wrapped = save.mapError { AppError.storage($0) }
    /// ```
    public func mapError<E: Error>(_ transform: @escaping (Failure) -> E)
        -> Completable<E>
    {
        return Completable<E>(unchecked: upstream.mapError(transform))
    }

    /// Replaces a failure with the completable that `handler` makes from it.
    ///
    /// ```swift
    /// let tolerant = save.catch { _ in Completable<Never>.empty }
    /// ```
    public func `catch`<E: Error>(
        _ handler: @escaping (Failure) -> Completable<E>
    ) -> Completable<E> {
        return Completable<E>(unchecked: upstream.catch(handler))
    }

    /// Runs `next` after this completable finishes (a failure skips it).
    ///
    /// ```swift
    /// let migrateThenClean = migrate.andThen(cleanUp)
    /// ```
    public func andThen(_ next: Completable) -> Completable {
        Completable(unchecked: TraitSupport.chain(upstream, next: nil, onEmpty: { next.upstream }))
    }

    /// Subscribes to `next` after this completable finishes (a failure skips it).
    ///
    /// ```swift
    /// let id = save.andThen(Single(record.id))
    /// ```
    public func andThen<T>(_ next: Single<T, Failure>) -> Single<T, Failure> {
        Single(unchecked: TraitSupport.chain(upstream, next: nil, onEmpty: { next.upstream }))
    }

    /// Subscribes to `next` after this completable finishes (a failure skips it).
    ///
    /// ```swift
    /// let cached = warmUp.andThen(cachedUser)
    /// ```
    public func andThen<T>(_ next: Maybe<T, Failure>) -> Maybe<T, Failure> {
        Maybe(unchecked: TraitSupport.chain(upstream, next: nil, onEmpty: { next.upstream }))
    }

    /// Subscribes and waits for the completion; throws the failure, or `CancellationError` if the task is
    /// cancelled first (the subscription is then cancelled).
    ///
    /// ```swift
    /// try await save.value
    /// ```
    public var value: Void {
        get async throws {
            _ = try await TraitSupport.awaitCompletion(of: upstream)
        }
    }
}

extension Publisher {
    /// Checks that this publisher sends no value, and makes that visible in the type.
    ///
    /// The result fails with ``TraitViolation/unexpectedValue`` (cancelling this publisher) if a value arrives;
    /// this publisher's own failures pass through unchanged. To drop values instead, use
    /// `ignoreOutput().asCompletable()`.
    ///
    /// ```swift
    /// let saved = database.save(record).asCompletable()
    /// ```
    ///
    /// **Demand:** requests `.unlimited` from this publisher as soon as it is subscribed (a completable's subscriber
    /// need not request anything).
    /// **Thread safety:** `cancel` from any thread; signals are serialized.
    public func asCompletable() -> Completable<any Error> {
        Completable(
            unchecked: TraitSupport.noValue(self, mapFailure: { $0 as any Error }, violation: { $0 as any Error }))
    }

    /// Like ``asCompletable()``, keeping this publisher's failure type: `violation` turns a value into it.
    ///
    /// ```swift
    /// let saved = source.asCompletable { _ in DBError.unexpectedRow }
    /// ```
    ///
    /// **Demand:** as ``asCompletable()``.
    /// **Thread safety:** as ``asCompletable()``.
    public func asCompletable(violation: @escaping (TraitViolation) -> Failure)
        -> Completable<Failure>
    {
        return Completable(unchecked: TraitSupport.noValue(self, mapFailure: { $0 }, violation: violation))
    }
}
