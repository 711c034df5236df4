import Untangle

extension TestScheduler {
    /// Creates a cold publisher that replays `timeline` for each subscriber, relative to its subscription time.
    ///
    /// ```swift
    /// let input: [TimedEvent<Int, Never>] = [.value(1, at: .seconds(1)), .finished(at: .seconds(2))]
    /// let publisher = scheduler.createColdPublisher(input)
    /// ```
    ///
    /// **Demand:** see ``ColdTestPublisher``: values wait for demand.
    /// **Thread safety:** see ``ColdTestPublisher``.
    public func createColdPublisher<Output, Failure: Error>(
        _ timeline: [TimedEvent<Output, Failure>]
    ) -> ColdTestPublisher<Output, Failure> {
        ColdTestPublisher(scheduler: self, timeline: timeline)
    }

    /// Creates a hot publisher that plays `timeline` once, relative to now, to whoever is subscribed.
    ///
    /// ```swift
    /// let input: [TimedEvent<Int, Never>] = [.value(1, at: .seconds(1)), .finished(at: .seconds(2))]
    /// let publisher = scheduler.createHotPublisher(input)
    /// ```
    ///
    /// **Demand:** see ``HotTestPublisher``: values without demand are missed.
    /// **Thread safety:** see ``HotTestPublisher``.
    public func createHotPublisher<Output, Failure: Error>(
        _ timeline: [TimedEvent<Output, Failure>]
    ) -> HotTestPublisher<Output, Failure> {
        HotTestPublisher(scheduler: self, timeline: timeline)
    }
}
