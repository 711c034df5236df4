extension Publishers {
    /// A strategy for filling a buffer.
    ///
    /// ```swift
    /// let buffered = source.buffer(size: 10, prefetch: .keepFull, whenFull: .dropOldest)
    /// ```
    ///
    /// **Demand:** see each case.
    /// **Thread safety:** a value.
    public enum PrefetchStrategy: Equatable, Hashable, Sendable {
        /// A strategy to fill the buffer at subscription time, and keep it full thereafter.
        ///
        /// This strategy starts by making a demand equal to the buffer's size from the upstream when the subscriber
        /// first connects. Afterwards, it continues to demand elements from the upstream to try to keep the buffer
        /// full: one more for every element passed downstream.
        case keepFull

        /// A strategy that avoids prefetching and instead performs requests on demand.
        ///
        /// This strategy just forwards the downstream's requests to the upstream publisher.
        case byRequest
    }
}
