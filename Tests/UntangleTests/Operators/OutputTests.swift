import Untangle
import XCTest

final class OutputTests: XCTestCase {
    func testRangesTranslate() {
        let empty = Empty<Int, Never>()
        XCTAssertEqual(empty.prefix(3).range, 0..<3)
        XCTAssertEqual(empty.prefix(0).range, 0..<0)
        XCTAssertEqual(empty.output(at: 4).range, 4..<5)
        XCTAssertEqual(empty.output(in: 2...5).range, 2..<6)
        XCTAssertEqual(empty.output(in: 2...).range, 2..<Int.max)
        XCTAssertEqual(empty.output(in: ..<8).range, 0..<8)
    }

    func testSkippedElementsAskForOneMoreAndTheLastInRangeFinishesAtOnce() {
        let upstream = ManualPublisher<Int, Never>()
        let recorder = Recorder<Int, Never>(initialDemand: .max(2)) { _, _ in .max(1) }
        upstream.output(in: 1..<3).subscribe(recorder)
        XCTAssertEqual(upstream.send(0), .max(1))
        XCTAssertEqual(upstream.send(1), .max(1))
        XCTAssertEqual(upstream.send(2), .max(1), "the last in range still returns the subscriber's demand")
        XCTAssertEqual(upstream.history, [.request(.max(2)), .cancel])
        upstream.send(3)
        XCTAssertEqual(recorder.events, [.subscription("Output"), .value(1), .value(2), .completion(.finished)])
    }

    func testPrefixOverASequenceWithExactDemand() {
        let recorder = Recorder<Int, Never>(initialDemand: .max(1))
        (0...10).publisher.eraseToAnyPublisher().prefix(2).subscribe(recorder)
        XCTAssertEqual(recorder.events, [.subscription("Output"), .value(0)])
        recorder.request(.max(5))
        XCTAssertEqual(recorder.events, [.subscription("Output"), .value(0), .value(1), .completion(.finished)])
    }

    func testEmptyRangeFinishesOnTheFirstElement() {
        let upstream = ManualPublisher<Int, Never>()
        let recorder = Recorder<Int, Never>()
        upstream.prefix(0).subscribe(recorder)
        upstream.send(1)
        XCTAssertEqual(recorder.events, [.subscription("Output"), .completion(.finished)])
        XCTAssertEqual(upstream.history, [.request(.unlimited), .cancel])
    }

    func testUpstreamCompletionBeforeTheRangeEndsIsForwarded() {
        let upstream = ManualPublisher<Int, TestError>()
        let recorder = Recorder<Int, TestError>()
        upstream.output(at: 3).subscribe(recorder)
        upstream.send(0)
        upstream.send(completion: .failure(TestError()))
        XCTAssertEqual(recorder.events, [.subscription("Output"), .completion(.failure(TestError()))])
    }

    func testCancelAndRelease() {
        let upstream = ManualPublisher<Int, Never>()
        XCTAssertTrue(sinkIsReleased(upstream.prefix(3), cancel: true))
        XCTAssertEqual(upstream.history, [.request(.unlimited), .cancel])
    }

    func testEquatableWhenTheUpstreamIs() {
        XCTAssertEqual(Just(1).prefix(2), Just(1).prefix(2))
        XCTAssertNotEqual(Just(1).prefix(2), Just(1).output(at: 2))
    }

    func testCancelInsideTheLastValueGetsNoFinished() {
        let upstream = ManualPublisher<Int, Never>()
        let recorder = Recorder<Int, Never>(initialDemand: .unlimited) { recorder, value in
            if value == 3 { recorder.cancel() }
            return .none
        }
        upstream.prefix(2).subscribe(recorder)
        upstream.send(2)
        upstream.send(3)
        XCTAssertEqual(recorder.events, [.subscription("Output"), .value(2), .value(3)])
        XCTAssertEqual(upstream.history, [.request(.unlimited), .cancel])
    }

    func testOutputAtCancelInsideTheValueGetsNoFinished() {
        let upstream = ManualPublisher<Int, Never>()
        let recorder = Recorder<Int, Never>(initialDemand: .max(1)) { recorder, _ in
            recorder.cancel()
            return .max(1)
        }
        upstream.output(at: 1).subscribe(recorder)
        XCTAssertEqual(upstream.send(5), .max(1))
        XCTAssertEqual(upstream.send(6), .max(1), "the subscriber's demand is still returned, as in Combine")
        upstream.send(completion: .finished)
        XCTAssertEqual(recorder.events, [.subscription("Output"), .value(6)])
        XCTAssertEqual(upstream.history, [.request(.max(1)), .cancel])
    }

    func testOutputInCancelInsideTheLastInRangeGetsNoFinished() {
        let upstream = ManualPublisher<Int, Never>()
        let recorder = Recorder<Int, Never>(initialDemand: .unlimited) { recorder, value in
            if value == 13 { recorder.cancel() }
            return .none
        }
        upstream.output(in: 1...3).subscribe(recorder)
        for value in 10...14 { upstream.send(value) }
        XCTAssertEqual(recorder.events, [.subscription("Output"), .value(11), .value(12), .value(13)])
        XCTAssertEqual(upstream.history, [.request(.unlimited), .cancel])
    }
}
