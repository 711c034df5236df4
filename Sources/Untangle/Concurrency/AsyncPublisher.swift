/// A publisher's values as an asynchronous sequence, for publishers that cannot fail.
///
/// Iterating subscribes to the publisher (once per iterator) and requests one value per `next()`; an upstream that
/// sends a value nobody asked for stops the program, as in Combine. When the publisher finishes, the loop ends. Cancelling the
/// iterating task, or leaving the loop early, cancels the subscription.
///
/// ```swift
/// let numbers = [1, 2, 3].publisher
/// for await number in numbers.values {
///     print(number)   // 1, 2, 3
/// }
/// ```
///
/// **Demand:** `.max(1)` per `next()` call; nothing is requested before the first call.
/// **Thread safety:** the sequence may be iterated from any task. Copies of one iterator may call `next()` from
/// several tasks at once: the calls are answered in the order they were made. The upstream may deliver on any thread;
/// no library lock is held while the task is suspended or while the upstream is asked or cancelled.
public struct AsyncPublisher<P: Publisher>: AsyncSequence where P.Failure == Never {
    /// The type of element produced by this asynchronous sequence.
    public typealias Element = P.Output

    @usableFromInline let publisher: P

    /// Creates a publisher that exposes elements received from an upstream publisher as an asynchronous sequence.
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
    /// var iterator = Just(7).values.makeAsyncIterator()
    /// let seven = await iterator.next()   // 7; then nil
    /// ```
    ///
    /// **Demand:** `.max(1)` per `next()`.
    /// **Thread safety:** copies may call `next()` concurrently (answered in call order); the subscription is
    /// cancelled when the last copy is released.
    public struct Iterator: AsyncIteratorProtocol {
        /// The type of element produced by the iterator.
        public typealias Element = P.Output

        @usableFromInline let owner: AsyncIteratorOwner<P.Output, Never>

        @inlinable
        init(owner: AsyncIteratorOwner<P.Output, Never>) {
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
        @inlinable
        public mutating func next() async -> P.Output? {
            switch await owner.next() {
            case .success(let value): return value
            case nil: return nil
            }
        }
    }
}

extension Publisher where Failure == Never {
    /// The elements produced by the publisher, as an asynchronous sequence.
    ///
    /// ```swift
    /// let subject = CurrentValueSubject<Int, Never>(0)
    /// for await value in subject.values { print(value); if value == 3 { break } }
    /// ```
    ///
    /// **Demand:** `.max(1)` per iteration (see ``AsyncPublisher``).
    /// **Thread safety:** see ``AsyncPublisher``.
    @inlinable
    public var values: AsyncPublisher<Self> {
        AsyncPublisher(self)
    }
}
