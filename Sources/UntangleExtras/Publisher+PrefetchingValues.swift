import Untangle

extension Publisher where Failure == Never {
    /// The publisher's values as an asynchronous sequence that asks for `window` values ahead of the loop instead of
    /// one per iteration: `values` with batched demand, for loops where the bridge's cost per element matters.
    ///
    /// ```swift
    /// for await line in lines.values(prefetch: 64) {
    ///     handle(line)
    /// }
    /// ```
    ///
    /// Combine's `values` (and Untangle's) requests `.max(1)` per `next()`, so every element costs a request upstream
    /// and, for an asynchronous upstream, a suspension. Here the first `next()` requests `.max(window)` and the
    /// iterator tops the request back up to `window` once half of it has been taken; values that arrive before the loop
    /// asks wait in the iterator. What a program can observe: upstream side effects run up to `window` elements ahead
    /// of the loop; a subject's values sent while no `next()` waits are kept (up to the demand) instead of dropped.
    /// Leaving the loop or cancelling its task cancels the subscription and releases the kept values.
    ///
    /// **Demand:** `.max(window)` at the first `next()`, then topped up to `window` outstanding-or-kept values when
    /// half of it has been used; never more than `window` requested and not yet taken by the loop. `window` must be at
    /// least 1 (1 is `values`' demand).
    /// **Thread safety:** as `values`: iterate from any task; copies of one iterator may call `next()` concurrently
    /// (answered in call order); the upstream may deliver on any thread; no library lock is held across an await or a
    /// callout.
    @inlinable
    public func values(prefetch window: Int) -> PrefetchingValues<Self> {
        precondition(window > 0, "values(prefetch:): the window must be at least one value, got \(window)")
        return PrefetchingValues(self, window: window)
    }
}

extension Publisher {
    /// The publisher's values as a throwing asynchronous sequence that asks for `window` values ahead of the loop
    /// instead of one per iteration (see the non-failing overload for the details).
    ///
    /// ```swift
    /// for try await row in database.rows(query).values(prefetch: 128) {
    ///     render(row)
    /// }
    /// ```
    ///
    /// The failure is thrown once, after the values that arrived before it.
    ///
    /// **Demand:** `.max(window)` at the first `next()`, then topped up to `window` outstanding-or-kept values when
    /// half of it has been used. `window` must be at least 1.
    /// **Thread safety:** as `values`: iterate from any task; no library lock is held across an await or a callout.
    @inlinable
    public func values(prefetch window: Int) -> PrefetchingThrowingValues<Self> {
        precondition(window > 0, "values(prefetch:): the window must be at least one value, got \(window)")
        return PrefetchingThrowingValues(self, window: window)
    }
}

/// A non-failing publisher's values with a prefetch window: the sequence `values(prefetch:)` returns.
///
/// ```swift
/// let numbers: PrefetchingValues = (0..<1_000).publisher.values(prefetch: 32)
/// for await number in numbers { total += number }
/// ```
///
/// **Demand:** up to `window` values ahead of the loop (see `values(prefetch:)`).
/// **Thread safety:** iterate from any task; each iterator has its own subscription.
public struct PrefetchingValues<P: Publisher>: AsyncSequence where P.Failure == Never {
    /// The type of element produced by this asynchronous sequence.
    public typealias Element = P.Output

    @usableFromInline let publisher: P
    @usableFromInline let window: Int

    @inlinable
    init(_ publisher: P, window: Int) {
        self.publisher = publisher
        self.window = window
    }

    /// Subscribes to the upstream and returns an iterator over its values.
    @inlinable
    public func makeAsyncIterator() -> AsyncPublisher<P>.Iterator {
        AsyncPublisher<P>.Iterator(prefetching: publisher, window: window)
    }
}

/// A failing publisher's values with a prefetch window: the sequence `values(prefetch:)` returns.
///
/// ```swift
/// let rows: PrefetchingThrowingValues = query.values(prefetch: 128)
/// for try await row in rows { render(row) }
/// ```
///
/// **Demand:** up to `window` values ahead of the loop (see `values(prefetch:)`).
/// **Thread safety:** iterate from any task; each iterator has its own subscription.
public struct PrefetchingThrowingValues<P: Publisher>: AsyncSequence {
    /// The type of element produced by this asynchronous sequence.
    public typealias Element = P.Output

    @usableFromInline let publisher: P
    @usableFromInline let window: Int

    @inlinable
    init(_ publisher: P, window: Int) {
        self.publisher = publisher
        self.window = window
    }

    /// Subscribes to the upstream and returns an iterator over its values.
    @inlinable
    public func makeAsyncIterator() -> AsyncThrowingPublisher<P>.Iterator {
        AsyncThrowingPublisher<P>.Iterator(prefetching: publisher, window: window)
    }
}
