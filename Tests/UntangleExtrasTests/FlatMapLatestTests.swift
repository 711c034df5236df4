import Untangle
import UntangleExtras
import XCTest

final class FlatMapLatestTests: XCTestCase {
    func testOnlyTheLatestInnerIsRepublishedAndTheReplacedOneIsCancelled() {
        let outer = OpSource<Int, OpError>()
        let inners = [OpSource<String, OpError>(), OpSource<String, OpError>()]
        let recorder = OpRecorder<String, OpError>(initialDemand: .max(3))
        outer.flatMapLatest { inners[$0] }.subscribe(recorder)
        outer.send(0)
        inners[0].send("a")
        outer.send(1)
        inners[0].send("stale")
        inners[1].send("b")
        outer.finish()
        inners[1].finish()
        XCTAssertEqual(recorder.events, [.subscription, .value("a"), .value("b"), .finished])
        XCTAssertEqual(outer.history, [.subscribed, .request(.unlimited)])
        XCTAssertEqual(inners[0].history, [.subscribed, .request(.max(3)), .cancel])
        XCTAssertEqual(inners[1].history, [.subscribed, .request(.max(2))], "the unmet demand carries over")
    }

    func testInnerFailureFailsAndCancelsOuter() {
        let outer = OpSource<Int, OpError>()
        let inner = OpSource<Int, OpError>()
        let recorder = OpRecorder<Int, OpError>()
        outer.flatMapLatest { _ in inner }.subscribe(recorder)
        outer.send(0)
        inner.send(completion: .failure(OpError(2)))
        XCTAssertEqual(recorder.events, [.subscription, .failure(OpError(2))])
        XCTAssertEqual(outer.history, [.subscribed, .request(.unlimited), .cancel])
    }

    func testOverloadsForNeverFailures() {
        var values: [Int] = []
        let a = [1, 2].publisher.flatMapLatest { Just($0 * 10) }.sink { values.append($0) }
        let b = [3].publisher.flatMapLatest { Fail<Int, OpError>(error: OpError($0)) }
            .sink(receiveCompletion: { if case .failure(let e) = $0 { values.append(e.code) } }, receiveValue: { _ in })
        let c = [4].publisher.setFailureType(to: OpError.self).flatMapLatest { Just($0) }
            .sink(receiveCompletion: { _ in }, receiveValue: { values.append($0) })
        XCTAssertEqual(values, [10, 20, 3, 4])
        withExtendedLifetime((a, b, c)) {}
    }

    func testCancelReleasesTheSubscriber() {
        let outer = OpSource<Int, OpError>()
        let inner = OpSource<Int, OpError>()
        weak var weakRecorder: OpRecorder<Int, OpError>?
        do {
            let recorder = OpRecorder<Int, OpError>()
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
