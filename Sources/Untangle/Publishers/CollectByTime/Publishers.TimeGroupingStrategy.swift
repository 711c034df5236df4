extension Publishers {
    /// A strategy for collecting received elements.
    ///
    /// ```swift
    /// let everySecond = Publishers.TimeGroupingStrategy.byTime(DispatchQueue.main, .seconds(1))
    /// let everySecondOrTen = Publishers.TimeGroupingStrategy.byTimeOrCount(DispatchQueue.main, .seconds(1), 10)
    /// ```
    ///
    /// **Demand:** see ``Publisher/collect(_:options:)``.
    /// **Thread safety:** a value.
    public enum TimeGroupingStrategy<Context: Scheduler> {
        /// A grouping that collects and periodically publishes items.
        case byTime(Context, Context.SchedulerTimeType.Stride)

        /// A grouping that collects and publishes items periodically or when a buffer reaches a maximum size.
        case byTimeOrCount(Context, Context.SchedulerTimeType.Stride, Int)
    }
}
