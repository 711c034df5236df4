extension ImmediateScheduler {
    /// The time type used by the immediate scheduler: time does not pass, so every instant is the same.
    ///
    /// ```swift
    /// let now = ImmediateScheduler.shared.now
    /// // now.advanced(by: 100) == now, now.distance(to: now.advanced(by: 5)) == 0
    /// ```
    ///
    /// **Thread safety:** an immutable value; use it from any thread.
    public struct SchedulerTimeType: Strideable, Sendable {
        init() {}

        /// The distance to another immediate scheduler time: always zero.
        public func distance(to other: SchedulerTimeType) -> Stride {
            Stride(0)
        }

        /// Advancing an immediate scheduler time yields the same time.
        public func advanced(by n: Stride) -> SchedulerTimeType {
            self
        }
    }
}
