import Untangle

extension Publisher {
    /// Groups each value with the `size - 1` values before it: a sliding window, emitted once it is full.
    ///
    /// ```swift
    /// let cancellable = [1, 2, 3, 4].publisher.nwise(3).sink { print($0) }   // [1, 2, 3], [2, 3, 4]
    /// ```
    ///
    /// - Precondition: `size >= 1`.
    ///
    /// **Demand:** one upstream value per window; the first `size - 1` values (which complete no window) are
    /// replaced by asking upstream for more (it is built on `scan` and `filter`).
    /// **Thread safety:** as `scan` and `filter`: `request`/`cancel` from any thread, signals serialized.
    public func nwise(_ size: Int) -> Publishers.Filter<Publishers.Scan<Self, [Output]>> {
        precondition(size >= 1, "nwise: the window size must be at least 1 (got \(size))")
        return scan([]) { window, value in
            var window = window
            if window.count == size {
                window.removeFirst()
            }
            window.append(value)
            return window
        }
        .filter { $0.count == size }
    }
}
