import Foundation
import Untangle
import UntangleExtras
import UntangleSync
import UntangleTesting
import XCTest

final class PairwiseTests: XCTestCase {
    private func label(_ pair: (Int, Int)) -> String { "\(pair.0)-\(pair.1)" }

    func testPairwisePairsEachValueWithThePreviousOne() {
        let pairs = LockedBox<[String]>([])
        let cancellable = [1, 2, 3].publisher.pairwise().sink { a, b in pairs.withLock { $0.append("\(a)-\(b)") } }
        XCTAssertEqual(pairs.withLock { $0 }, ["1-2", "2-3"])
        cancellable.cancel()
    }

    func testFullHistoryOfASynchronousUpstream() {
        let recorder = Recorder<String, Never>()
        [1, 2, 3].publisher.pairwise().map(label).subscribe(recorder)
        XCTAssertEqual(
            recorder.events, [.subscription("Pairwise"), .value("1-2"), .value("2-3"), .completion(.finished)])
    }

    func testOneValueOrNoneFinishesWithoutAPair() {
        let recorder = Recorder<String, Never>()
        Just(1).pairwise().map(label).subscribe(recorder)
        XCTAssertEqual(recorder.events, [.subscription("Pairwise"), .completion(.finished)])
    }

    func testTheFirstValueIsReplacedByARequestAndDemandPassesStraightThrough() {
        let upstream = ManualPublisher<Int, TestError>()
        let recorder = Recorder<String, TestError>(initialDemand: .max(1))
        upstream.pairwise().map(label).subscribe(recorder)
        XCTAssertEqual(upstream.history, [.request(.max(1))])
        XCTAssertEqual(upstream.send(1), .max(1), "the first value completes no pair: one more in its place")
        XCTAssertEqual(upstream.send(2), .none, "the downstream's demand is used up")
        recorder.request(.max(2))
        XCTAssertEqual(upstream.history, [.request(.max(1)), .request(.max(2))])
        upstream.send(3)
        upstream.send(completion: .failure(TestError(4)))
        XCTAssertEqual(
            recorder.events,
            [.subscription("Pairwise"), .value("1-2"), .value("2-3"), .completion(.failure(TestError(4)))])
    }

    func testCancelCancelsUpstreamOnceAndReleasesTheSubscriberAndThePreviousValue() {
        let upstream = ManualPublisher<Token, Never>()
        weak var weakRecorder: Recorder<Int, Never>?
        weak var weakPrevious: Token?
        do {
            let recorder = Recorder<Int, Never>()
            weakRecorder = recorder
            upstream.pairwise().map { $0.0.id + $0.1.id }.subscribe(recorder)
            let previous = Token(1)
            weakPrevious = previous
            upstream.send(previous)
            recorder.cancel()
            recorder.cancel()
            upstream.send(Token(2))
            XCTAssertEqual(recorder.events, [.subscription("Pairwise")])
        }
        XCTAssertEqual(upstream.history, [.request(.unlimited), .cancel])
        XCTAssertNil(weakRecorder, "cancel releases the subscriber")
        XCTAssertNil(weakPrevious, "and the previous value, with the subscription")
    }
}

final class PairwiseConcurrencyTests: XCTestCase {
    func testCancelRacingValuesDeliversConsecutivePairsAndNothingAfterTheCancel() {
        for _ in 0..<100 {
            let upstream = PassthroughSubject<Int, Never>()
            let detector = OverlapDetector()
            let recorder = Recorder<Int, Never>(onValue: { _, _ in detector.around { .none } })
            upstream.pairwise().map { $0.1 - $0.0 }.subscribe(recorder)
            runConcurrently(threads: 2) { thread in
                if thread == 0 {
                    for i in 0..<500 { upstream.send(i) }
                } else {
                    recorder.cancel()
                }
            }
            let delivered = recorder.values.count
            upstream.send(500)
            XCTAssertEqual(recorder.values.count, delivered, "nothing after the cancel")
            XCTAssertTrue(recorder.values.allSatisfy { $0 == 1 }, "each pair is two consecutive values")
            XCTAssertEqual(detector.overlaps, 0)
        }
    }
}
