import Dispatch
import Untangle

extension TestSubscriber {
    /// The recorded signals as a marble diagram from `origin` (see ``Marbles/render(_:from:frame:symbol:)``).
    ///
    /// ```swift
    /// XCTAssertEqual(subscriber.marbles(from: start) { Character(String($0)) }, "-1-2|")
    /// ```
    ///
    /// - Precondition: the subscriber was created with a scheduler.
    public func marbles(
        from origin: TestScheduler.SchedulerTimeType,
        frame: TestScheduler.SchedulerTimeType.Stride = Marbles.defaultFrame,
        symbol: (Input) -> Character
    ) -> String {
        Marbles.render(records, from: origin, frame: frame, symbol: symbol)
    }
}

extension TestSubscriber where Input: Equatable {
    /// The recorded signals as a marble diagram from `origin`, each value drawn as its key in `values` (`?` when it
    /// has none), so the result compares directly with an expected diagram.
    ///
    /// ```swift
    /// XCTAssertEqual(subscriber.marbles(from: start, values: ["x": 10, "y": 20]), "-x-y|")
    /// ```
    ///
    /// - Precondition: the subscriber was created with a scheduler.
    public func marbles(
        from origin: TestScheduler.SchedulerTimeType,
        frame: TestScheduler.SchedulerTimeType.Stride = Marbles.defaultFrame,
        values: [Character: Input]
    ) -> String {
        marbles(from: origin, frame: frame) { value in
            values.first { $0.value == value }?.key ?? "?"
        }
    }
}
