/// The promise a ``Single``, ``Maybe`` or ``Completable`` constructor hands its closure: call it once, from any
/// thread, with the result (later calls are ignored).
///
/// ```swift
/// let single = Single<Int, Never> { (promise: @escaping TraitPromise<Int, Never>) in
///     DispatchQueue.global().async { promise(.success(42)) }
/// }
/// ```
///
/// **Thread safety:** `@Sendable`: may be called from any thread, concurrently; the first call wins.
public typealias TraitPromise<Output, Failure: Error> = @Sendable (Result<Output, Failure>) -> Void
