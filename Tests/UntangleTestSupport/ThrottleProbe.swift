import Untangle
import UntangleTesting

extension Publisher {
    /// Everything a subscriber of `throttle(for: 20 ms, latest: false)` over this publisher receives once a virtual
    /// clock ran a second: a probe of *when* this publisher delivers a value requested inside
    /// `receive(subscription:)`. `throttle` asks its upstream for `.unlimited` there, before its own subscriber has
    /// asked, and drops a value that arrives meanwhile: a value delivered inside that request (as Combine's `Just`,
    /// `Future` and `buffer` deliver) is dropped, one delivered only after the callout returned gets through.
    ///
    /// ```swift
    /// XCTAssertEqual(Just(2).eventsThroughThrottle(), [.subscription("Throttle"), .completion(.finished)])
    /// ```
    package func eventsThroughThrottle() -> [Event<Output, Failure>] {
        let scheduler = TestScheduler()
        let recorder = Recorder<Output, Failure>()
        throttle(for: .milliseconds(20), scheduler: scheduler, latest: false).subscribe(recorder)
        scheduler.advance(by: .seconds(1))
        return recorder.events
    }
}
