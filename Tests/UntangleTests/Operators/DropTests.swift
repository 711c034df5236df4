import Untangle
import XCTest

final class DropTests: XCTestCase {
    func testAsksForTheDroppedElementsWithTheEarlyDemandInOneRequestThenPassesDemandThrough() {
        let upstream = ManualPublisher<Int, Never>()
        let recorder = Recorder<Int, Never>(initialDemand: .max(1)) { _, _ in .max(1) }
        upstream.dropFirst(2).subscribe(recorder)
        XCTAssertEqual(upstream.history, [.request(.max(3))], "the subscriber's 1 plus the 2 dropped, as in Combine")
        XCTAssertEqual(upstream.send(1), .none, "a dropped element was paid for up front")
        XCTAssertEqual(upstream.send(2), .none)
        XCTAssertEqual(upstream.send(3), .max(1))
        upstream.send(completion: .finished)
        XCTAssertEqual(recorder.events, [.subscription("Drop"), .value(3), .completion(.finished)])
    }

    func testExactDemandOverASequence() {
        let recorder = Recorder<Int, Never>(initialDemand: nil)
        (1...5).publisher.eraseToAnyPublisher().dropFirst().subscribe(recorder)
        XCTAssertEqual(recorder.values, [])
        recorder.request(.max(2))
        XCTAssertEqual(recorder.values, [2, 3])
        recorder.request(.unlimited)
        XCTAssertEqual(
            recorder.events,
            [.subscription("Drop"), .value(2), .value(3), .value(4), .value(5), .completion(.finished)])
    }

    func testZeroCountAndShortUpstream() {
        let upstream = ManualPublisher<Int, Never>()
        let recorder = Recorder<Int, Never>(initialDemand: nil)
        upstream.dropFirst(0).subscribe(recorder)
        XCTAssertEqual(upstream.history, [], "nothing to drop: nothing asked")
        let short = Recorder<Int, Never>(initialDemand: nil)
        [1].publisher.eraseToAnyPublisher().dropFirst(3).subscribe(short)
        XCTAssertEqual(short.events, [.subscription("Drop"), .completion(.finished)])
    }

    func testCancelIsIdempotentAndReleases() {
        let upstream = ManualPublisher<Int, Never>()
        let recorder = Recorder<Int, Never>(initialDemand: nil)
        upstream.dropFirst().subscribe(recorder)
        recorder.cancel()
        recorder.cancel()
        recorder.request(.max(1))
        XCTAssertEqual(upstream.history, [.request(.max(1)), .cancel])
        XCTAssertTrue(sinkIsReleased(ManualPublisher<Int, Never>().dropFirst(), cancel: true))
    }

    func testEquatableWhenTheUpstreamIs() {
        XCTAssertEqual(Just(1).dropFirst() as Publishers.Drop<Just<Int>>, Just(1).dropFirst(1))
        XCTAssertNotEqual(Just(1).dropFirst() as Publishers.Drop<Just<Int>>, Just(1).dropFirst(2))
    }
}
