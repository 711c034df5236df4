import Foundation
import Untangle
import UntangleExtras
import UntangleSync
import XCTest

final class NwiseTests: XCTestCase {
    func testNwiseEmitsFullSlidingWindows() {
        let recorder = Recorder<[Int], Never>()
        [1, 2, 3, 4, 5].publisher.nwise(3).subscribe(recorder)
        XCTAssertEqual(recorder.values, [[1, 2, 3], [2, 3, 4], [3, 4, 5]])
        XCTAssertEqual(recorder.completions, [.finished])
    }

    func testNwiseOfOneWrapsEachValue() {
        let recorder = Recorder<[Int], Never>()
        [1, 2].publisher.nwise(1).subscribe(recorder)
        XCTAssertEqual(recorder.values, [[1], [2]])
    }

    func testTooFewValuesEmitNothingButFinish() {
        let recorder = Recorder<[Int], Never>()
        [1, 2].publisher.nwise(3).subscribe(recorder)
        XCTAssertEqual(recorder.values, [])
        XCTAssertEqual(recorder.completions, [.finished])
    }

    func testDemandIsOneUpstreamValuePerWindowAfterTheFirstIsFull() {
        let upstream = ManualPublisher<Int, Never>()
        let recorder = Recorder<[Int], Never>(initialDemand: .max(1))
        upstream.nwise(2).subscribe(recorder)
        // The first value completes no window: the filter asks upstream for one more in its place.
        XCTAssertEqual(upstream.send(1), .max(1))
        XCTAssertEqual(upstream.send(2), .none)
        XCTAssertEqual(recorder.values, [[1, 2]])
        XCTAssertEqual(upstream.history, [.request(.max(1))])
        recorder.cancel()
        XCTAssertEqual(upstream.history.last, .cancel)
    }
}
