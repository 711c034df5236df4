import Untangle
import UntangleExtras
import UntangleTesting
import XCTest

final class EnumeratedTests: XCTestCase {
    private func label(_ indexed: (index: Int, element: String)) -> String { "\(indexed.index):\(indexed.element)" }

    func testFullHistoryOfASynchronousUpstreamCountsFromZero() {
        let recorder = Recorder<String, Never>()
        ["a", "b", "c"].publisher.enumerated().map(label).subscribe(recorder)
        XCTAssertEqual(
            recorder.events,
            [.subscription("Enumerated"), .value("0:a"), .value("1:b"), .value("2:c"), .completion(.finished)])
    }

    func testEachSubscriptionCountsFromZeroAgain() {
        let indexed = ["a", "b"].publisher.enumerated().map(label)
        let first = Recorder<String, Never>()
        let second = Recorder<String, Never>()
        indexed.subscribe(first)
        indexed.subscribe(second)
        XCTAssertEqual(first.values, ["0:a", "1:b"])
        XCTAssertEqual(second.values, ["0:a", "1:b"], "RxSwift's enumerated() counts per subscription")
    }

    func testDemandPassesThroughAndAFailureEndsTheHistory() {
        let upstream = ManualPublisher<String, TestError>()
        let recorder = Recorder<String, TestError>(initialDemand: .max(1))
        upstream.enumerated().map(label).subscribe(recorder)
        XCTAssertEqual(upstream.history, [.request(.max(1))])
        XCTAssertEqual(upstream.send("a"), .none)
        recorder.request(.max(1))
        upstream.send("b")
        upstream.send(completion: .failure(TestError(3)))
        XCTAssertEqual(upstream.history, [.request(.max(1)), .request(.max(1))])
        XCTAssertEqual(
            recorder.events,
            [.subscription("Enumerated"), .value("0:a"), .value("1:b"), .completion(.failure(TestError(3)))])
    }

    func testCancelCancelsUpstreamOnceAndNothingArrivesAfterIt() {
        let upstream = ManualPublisher<String, Never>()
        let recorder = Recorder<String, Never>()
        upstream.enumerated().map(label).subscribe(recorder)
        upstream.send("a")
        recorder.cancel()
        recorder.cancel()
        upstream.send("b")
        XCTAssertEqual(upstream.history, [.request(.unlimited), .cancel])
        XCTAssertEqual(recorder.events, [.subscription("Enumerated"), .value("0:a")])
    }
}
