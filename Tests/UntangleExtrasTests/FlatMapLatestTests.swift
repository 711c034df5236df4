import Untangle
import UntangleExtras
import XCTest

final class FlatMapLatestTests: XCTestCase {
    func testOnlyTheLatestInnerIsRepublishedAndTheReplacedOneIsCancelled() {
        let outer = ManualPublisher<Int, TestError>(recordsSubscriptions: true)
        let inners = [
            ManualPublisher<String, TestError>(recordsSubscriptions: true),
            ManualPublisher<String, TestError>(recordsSubscriptions: true),
        ]
        let recorder = Recorder<String, TestError>(initialDemand: .max(3))
        outer.flatMapLatest { inners[$0] }.subscribe(recorder)
        outer.send(0)
        inners[0].send("a")
        outer.send(1)
        inners[0].send("stale")
        inners[1].send("b")
        outer.finish()
        inners[1].finish()
        XCTAssertEqual(
            recorder.events, [.subscription("SwitchToLatest"), .value("a"), .value("b"), .completion(.finished)])
        XCTAssertEqual(outer.history, [.subscribed, .request(.unlimited)])
        XCTAssertEqual(inners[0].history, [.subscribed, .request(.max(3)), .cancel])
        XCTAssertEqual(inners[1].history, [.subscribed, .request(.max(2))], "the unmet demand carries over")
    }

    func testInnerFailureFailsAndCancelsOuter() {
        let outer = ManualPublisher<Int, TestError>(recordsSubscriptions: true)
        let inner = ManualPublisher<Int, TestError>(recordsSubscriptions: true)
        let recorder = Recorder<Int, TestError>()
        outer.flatMapLatest { _ in inner }.subscribe(recorder)
        outer.send(0)
        inner.send(completion: .failure(TestError(2)))
        XCTAssertEqual(recorder.events, [.subscription("SwitchToLatest"), .completion(.failure(TestError(2)))])
        XCTAssertEqual(outer.history, [.subscribed, .request(.unlimited), .cancel])
    }

    func testOverloadsForNeverFailures() {
        var values: [Int] = []
        let a = [1, 2].publisher.flatMapLatest { Just($0 * 10) }.sink { values.append($0) }
        let b = [3].publisher.flatMapLatest { Fail<Int, TestError>(error: TestError($0)) }
            .sink(receiveCompletion: { if case .failure(let e) = $0 { values.append(e.code) } }, receiveValue: { _ in })
        let c = [4].publisher.setFailureType(to: TestError.self).flatMapLatest { Just($0) }
            .sink(receiveCompletion: { _ in }, receiveValue: { values.append($0) })
        XCTAssertEqual(values, [10, 20, 3, 4])
        withExtendedLifetime((a, b, c)) {}
    }

    func testCancelReleasesTheSubscriber() {
        let outer = ManualPublisher<Int, TestError>(recordsSubscriptions: true)
        let inner = ManualPublisher<Int, TestError>(recordsSubscriptions: true)
        weak var weakRecorder: Recorder<Int, TestError>?
        do {
            let recorder = Recorder<Int, TestError>()
            weakRecorder = recorder
            outer.flatMapLatest { _ in inner }.subscribe(recorder)
            outer.send(0)
            recorder.cancel()
        }
        XCTAssertEqual(inner.history, [.subscribed, .request(.unlimited), .cancel])
        XCTAssertEqual(outer.history, [.subscribed, .request(.unlimited), .cancel])
        XCTAssertNil(weakRecorder)
    }
}
