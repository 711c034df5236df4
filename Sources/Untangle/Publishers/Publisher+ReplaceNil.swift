extension Publisher {
    /// Replaces nil elements in the stream with the provided element.
    ///
    /// ```swift
    /// let numbers: [Double?] = [1.0, nil, 3.0]
    /// let cancellable = numbers.publisher
    ///     .replaceNil(with: 0.0)
    ///     .sink { print($0) }   // 1.0, 0.0, 3.0
    /// ```
    ///
    /// As in Combine, the result is a ``Publishers/Map`` from `T?` to `T`.
    ///
    /// **Demand:** passed through unchanged.
    /// **Thread safety:** as the upstream: a transparent map stage.
    public func replaceNil<T>(with output: T) -> Publishers.Map<Self, T> where Output == T? {
        Publishers.Map(upstream: self) { $0 ?? output }
    }
}
