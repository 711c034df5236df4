import Untangle
import UntangleExtras
import XCTest

/// Machinery.md's reducer sample (`count(where:)`, Publishers.CountWhere.swift beside this file) behaves as a
/// reducer: `.unlimited` upstream at subscription, one result once the upstream finished and the subscriber asked.
final class CountWhereSampleTests: XCTestCase {
    func testCountsTheMatchingValuesAndPublishesTheCountWhenTheUpstreamFinishes() {
        let upstream = ManualPublisher<Int, TestError>()
        let recorder = Recorder<Int, TestError>(initialDemand: nil)
        upstream.count(where: { $0.isMultiple(of: 2) }).subscribe(recorder)
        XCTAssertEqual(upstream.history, [.request(.unlimited)])
        for value in 1...5 { upstream.send(value) }
        upstream.send(completion: .finished)
        XCTAssertEqual(recorder.events, [.subscription("CountWhere")], "the result waits for demand")
        recorder.request(.max(1))
        XCTAssertEqual(recorder.events, [.subscription("CountWhere"), .value(2), .completion(.finished)])
    }

    func testAFailurePassesThroughWithoutACount() {
        let recorder = Recorder<Int, TestError>()
        Fail<Int, TestError>(error: TestError(1)).count(where: { _ in true }).subscribe(recorder)
        XCTAssertEqual(recorder.events, [.subscription("CountWhere"), .completion(.failure(TestError(1)))])
    }

    func testCancelCancelsTheUpstream() {
        let upstream = ManualPublisher<Int, TestError>()
        let recorder = Recorder<Int, TestError>()
        upstream.count(where: { _ in true }).subscribe(recorder)
        recorder.cancel()
        upstream.send(completion: .finished)
        XCTAssertEqual(upstream.history, [.request(.unlimited), .cancel])
        XCTAssertEqual(recorder.events, [.subscription("CountWhere")])
    }
}
