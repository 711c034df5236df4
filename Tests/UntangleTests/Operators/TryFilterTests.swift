import Untangle
import XCTest

final class TryFilterTests: XCTestCase {
    func testFilteredOutValuesAskForOneMoreAndAThrowFails() {
        let upstream = ManualPublisher<Int, Never>()
        let recorder = Recorder<Int, Error>(initialDemand: .max(1))
        upstream.tryFilter { value in
            if value == 0 { throw TestError(0) }
            return value.isMultiple(of: 2)
        }.subscribe(recorder)
        XCTAssertEqual(upstream.send(1), .max(1))
        XCTAssertEqual(upstream.send(2), .none)
        upstream.send(0)
        upstream.send(4)
        upstream.send(completion: .finished)
        XCTAssertEqual(describe(recorder), ["subscription(TryFilter)", "value(2)", "failure(TestError(0))"])
        XCTAssertEqual(upstream.history, [.request(.max(1)), .cancel])
    }

    func testFusions() {
        let a: Publishers.TryFilter<Publishers.Sequence<ClosedRange<Int>, Never>> = (1...12).publisher
            .filter { $0.isMultiple(of: 2) }
            .tryFilter { $0.isMultiple(of: 3) }
            .filter { $0 > 6 }
            .tryFilter { _ in true }
        let recorder = Recorder<Int, Error>()
        a.subscribe(recorder)
        XCTAssertEqual(describe(recorder), ["subscription(TryFilter)", "value(12)", "finished"])
    }

    func testUpstreamFailureCancelAndRelease() {
        let failed = Recorder<Int, Error>()
        Fail<Int, TestError>(error: TestError(3)).tryFilter { _ in true }.subscribe(failed)
        XCTAssertEqual(thrownError(failed), TestError(3))
        let upstream = ManualPublisher<Int, Never>()
        XCTAssertTrue(sinkIsReleased(upstream.tryFilter { _ in true }, cancel: true))
        XCTAssertEqual(upstream.history, [.request(.unlimited), .cancel])
    }
}
