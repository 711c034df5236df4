import Dispatch
import Untangle

extension TestScheduler {
    /// A cold publisher from a marble diagram (see ``Marbles``); `#` fails with `error`.
    ///
    /// ```swift
    /// let input = try scheduler.createColdPublisher(marbles: "-a-#", values: ["a": 1], error: TestError())
    /// ```
    ///
    /// **Demand:** see ``ColdTestPublisher``.
    /// **Thread safety:** see ``ColdTestPublisher``.
    public func createColdPublisher<Value, Failure: Error>(
        marbles: String, values: [Character: Value], error: Failure,
        frame: SchedulerTimeType.Stride = Marbles.defaultFrame
    ) throws -> ColdTestPublisher<Value, Failure> {
        createColdPublisher(
            try Marbles.parse(marbles, values: values, error: error, frame: frame, allowsSubscriptionPoint: false))
    }

    /// A cold publisher that never fails, from a marble diagram (see ``Marbles``).
    ///
    /// ```swift
    /// let input = try scheduler.createColdPublisher(marbles: "-a-b--c|", values: ["a": 1, "b": 2, "c": 3])
    /// ```
    ///
    /// **Demand:** see ``ColdTestPublisher``.
    /// **Thread safety:** see ``ColdTestPublisher``.
    public func createColdPublisher<Value>(
        marbles: String, values: [Character: Value], frame: SchedulerTimeType.Stride = Marbles.defaultFrame
    ) throws -> ColdTestPublisher<Value, Never> {
        createColdPublisher(
            try Marbles.parse(marbles, values: values, error: Never?.none, frame: frame, allowsSubscriptionPoint: false)
        )
    }

    /// A hot publisher from a marble diagram (see ``Marbles``): `^` is now; what comes before it never plays.
    ///
    /// ```swift
    /// let input = try scheduler.createHotPublisher(marbles: "-a-^-b-#", values: ["a": 1, "b": 2], error: TestError())
    /// ```
    ///
    /// **Demand:** see ``HotTestPublisher``.
    /// **Thread safety:** see ``HotTestPublisher``.
    public func createHotPublisher<Value, Failure: Error>(
        marbles: String, values: [Character: Value], error: Failure,
        frame: SchedulerTimeType.Stride = Marbles.defaultFrame
    ) throws -> HotTestPublisher<Value, Failure> {
        createHotPublisher(try Marbles.parse(marbles, values: values, error: error, frame: frame))
    }

    /// A hot publisher that never fails, from a marble diagram (see ``Marbles``).
    ///
    /// ```swift
    /// let input = try scheduler.createHotPublisher(marbles: "a-^-b-c|", values: ["a": 1, "b": 2, "c": 3])
    /// ```
    ///
    /// **Demand:** see ``HotTestPublisher``.
    /// **Thread safety:** see ``HotTestPublisher``.
    public func createHotPublisher<Value>(
        marbles: String, values: [Character: Value], frame: SchedulerTimeType.Stride = Marbles.defaultFrame
    ) throws -> HotTestPublisher<Value, Never> {
        createHotPublisher(try Marbles.parse(marbles, values: values, error: Never?.none, frame: frame))
    }
}
