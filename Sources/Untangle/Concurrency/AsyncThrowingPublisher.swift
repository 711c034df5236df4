/// A publisher's values as a throwing asynchronous sequence: the publisher's failure is thrown to the awaiting caller.
///
/// Iterating subscribes to the publisher (once per iterator) and requests one value per `next()`. When the publisher
/// finishes, the loop ends; when it fails, `next()` throws the failure once and returns nil afterwards. Cancelling the
/// iterating task, or leaving the loop early, cancels the subscription; a `next()` waiting at that moment returns nil
/// (it does not throw `CancellationError`).
///
/// ```swift
/// let parsed = ["1", "2", "x"].publisher.tryMap { text -> Int in
///     guard let number = Int(text) else { throw URLError(.cannotDecodeContentData) }
///     return number
/// }
/// do {
///     for try await number in parsed.values { print(number) }   // 1, 2
/// } catch {
///     print(error)                                              // the URLError
/// }
/// ```
///
/// **Demand:** `.max(1)` per `next()` call; nothing is requested before the first call.
/// **Thread safety:** the sequence may be iterated from any task. Copies of one iterator may call `next()` from
/// several tasks at once: the calls are answered in the order they were made. No library lock is held while the task
/// is suspended or while the upstream is asked or cancelled.
public struct AsyncThrowingPublisher<P: Publisher>: AsyncSequence {
    /// The type of element produced by this asynchronous sequence.
    public typealias Element = P.Output

    @usableFromInline let publisher: P

    /// Creates a publisher that exposes elements received from an upstream publisher as a throwing asynchronous
    /// sequence.
    ///
    /// - Parameter publisher: The upstream publisher.
    @inlinable
    public init(_ publisher: P) {
        self.publisher = publisher
    }

    /// Subscribes to the upstream and returns an iterator over its values.
    @inlinable
    public func makeAsyncIterator() -> Iterator {
        // Combine's demand, `.max(1)` per `next()` (the conformance suite records it); the subscriber's prefetch
        // window stays at one value.
        Iterator(owner: AsyncIteratorOwner(subscribingTo: publisher, window: 1))
    }

    /// The iterator that produces elements of the asynchronous publisher sequence.
    ///
    /// ```swift
    /// var iterator = Fail<Int, URLError>(error: URLError(.timedOut)).values.makeAsyncIterator()
    /// _ = try? await iterator.next()   // throws URLError(.timedOut); later calls return nil
    /// ```
    ///
    /// **Demand:** `.max(1)` per `next()`.
    /// **Thread safety:** copies may call `next()` concurrently (answered in call order); the subscription is
    /// cancelled when the last copy is released.
    public struct Iterator: AsyncIteratorProtocol {
        /// The type of element produced by the iterator.
        public typealias Element = P.Output

        @usableFromInline let owner: AsyncIteratorOwner<P.Output, P.Failure>

        @inlinable
        init(owner: AsyncIteratorOwner<P.Output, P.Failure>) {
            self.owner = owner
        }

        // UntangleExtras' `values(prefetch:)`: the same iterator over a subscriber that requests `window` values ahead
        // (`package`, so Combine's API gains nothing here).
        @inlinable
        package init(prefetching publisher: P, window: Int) {
            self.init(owner: AsyncIteratorOwner(subscribingTo: publisher, window: window))
        }

        /// Produces the next element in the prefix sequence.
        ///
        /// - Returns: The next published element, or nil if the publisher finishes normally or the task was cancelled.
        /// - Throws: The publisher's failure, once.
        @inlinable
        public mutating func next() async throws -> P.Output? {
            switch await owner.next() {
            case .success(let value): return value
            case .failure(let error): throw error
            case nil: return nil
            }
        }
    }
}

extension Publisher {
    /// The elements produced by the publisher, as a throwing asynchronous sequence.
    ///
    /// ```swift
    /// for try await value in PassthroughSubject<Int, URLError>().values { print(value) }
    /// ```
    ///
    /// **Demand:** `.max(1)` per iteration (see ``AsyncThrowingPublisher``).
    /// **Thread safety:** see ``AsyncThrowingPublisher``.
    @inlinable
    public var values: AsyncThrowingPublisher<Self> {
        AsyncThrowingPublisher(self)
    }
}
