extension Publishers {
    /// A strategy that handles exhaustion of a buffer's capacity.
    ///
    /// ```swift
    /// let buffered = source.buffer(size: 100, prefetch: .byRequest, whenFull: .customError { Overflow() })
    /// ```
    ///
    /// **Thread safety:** a value; the `customError` closure is called with no lock held, on the thread delivering
    /// the element that did not fit.
    public enum BufferingStrategy<Failure: Error> {
        /// When the buffer is full, discard the newly received element.
        case dropNewest

        /// When the buffer is full, discard the oldest element in the buffer.
        case dropOldest

        /// When the buffer is full, execute the closure to provide a custom error.
        case customError(() -> Failure)
    }
}
