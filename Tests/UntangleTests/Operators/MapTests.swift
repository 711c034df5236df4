import Untangle
import XCTest

final class MapTests: XCTestCase {
    func testTransformsValuesAndPassesDemandThrough() {
        let upstream = ManualPublisher<Int, TestError>()
        let recorder = Recorder<String, TestError>(initialDemand: .max(2))
        upstream.map { "#\($0)" }.subscribe(recorder)
        XCTAssertEqual(upstream.history, [.request(.max(2))])
        XCTAssertEqual(upstream.send(1), .none)
        upstream.send(2)
        upstream.send(completion: .failure(TestError(4)))
        XCTAssertEqual(
            recorder.events,
            [.subscription("ManualSubscription"), .value("#1"), .value("#2"), .completion(.failure(TestError(4)))])
        recorder.cancel()
        XCTAssertEqual(upstream.history, [.request(.max(2)), .cancel])
    }

    func testDemandReturnedByTheSubscriberReachesUpstream() {
        let upstream = ManualPublisher<Int, Never>()
        let recorder = Recorder<Int, Never>(initialDemand: .max(1)) { _, _ in .max(3) }
        upstream.map { $0 + 1 }.subscribe(recorder)
        XCTAssertEqual(upstream.send(1), .max(3))
    }

    func testMapOfMapIsFusedIntoOneStage() {
        let fused: Publishers.Map<Publishers.Sequence<[Int], Never>, String> = [1, 2].publisher
            .map { $0 * 2 }
            .map { String($0) }
        let recorder = Recorder<String, Never>()
        fused.subscribe(recorder)
        XCTAssertEqual(recorder.values, ["2", "4"])
    }
}

final class TryMapTests: XCTestCase {
    func testThrowCancelsUpstreamOnceAndFails() {
        let upstream = ManualPublisher<Int, Never>()
        let recorder = Recorder<Int, Error>(initialDemand: .unlimited)
        upstream.tryMap { value -> Int in
            if value == 2 { throw TestError(2) }
            return value * 10
        }.subscribe(recorder)
        upstream.send(1)
        upstream.send(2)
        upstream.send(3)
        upstream.send(completion: .finished)
        XCTAssertEqual(recorder.values, [10])
        XCTAssertEqual(recorder.completions.count, 1)
        if case .failure(let error as TestError)? = recorder.completions.first {
            XCTAssertEqual(error, TestError(2))
        } else {
            XCTFail("expected failure(TestError(2)), got \(recorder.completions)")
        }
        XCTAssertEqual(upstream.history, [.request(.unlimited), .cancel])
        recorder.cancel()
        XCTAssertEqual(upstream.history, [.request(.unlimited), .cancel], "cancel after the failure is a no-op")
    }

    func testUpstreamFailureIsForwardedAsError() {
        let recorder = Recorder<Int, Error>()
        Fail<Int, TestError>(error: TestError(5)).tryMap { $0 }.subscribe(recorder)
        guard case .failure(let error as TestError)? = recorder.completions.first else { return XCTFail() }
        XCTAssertEqual(error, TestError(5))
    }

    func testDemandAndCancelPassUpstream() {
        let upstream = ManualPublisher<Int, Never>()
        let recorder = Recorder<Int, Error>(initialDemand: nil)
        upstream.tryMap { $0 }.subscribe(recorder)
        recorder.request(.max(2))
        recorder.cancel()
        recorder.cancel()
        XCTAssertEqual(upstream.history, [.request(.max(2)), .cancel])
        XCTAssertEqual(recorder.events.count, 1, "only the subscription")
    }
}

final class FilterTests: XCTestCase {
    func testSkippedValuesAskUpstreamForOneMore() {
        let upstream = ManualPublisher<Int, Never>()
        let recorder = Recorder<Int, Never>(initialDemand: .max(1))
        upstream.filter { $0.isMultiple(of: 2) }.subscribe(recorder)
        XCTAssertEqual(upstream.send(1), .max(1), "a filtered-out value is replaced by a request for one more")
        XCTAssertEqual(upstream.send(2), .none)
        upstream.send(completion: .finished)
        XCTAssertEqual(recorder.events, [.subscription("ManualSubscription"), .value(2), .completion(.finished)])
    }

    func testExactDemandOverASequence() {
        let recorder = Recorder<Int, Never>(initialDemand: .max(2))
        (1...10).publisher.eraseToAnyPublisher().filter { $0 > 5 }.subscribe(recorder)
        XCTAssertEqual(recorder.values, [6, 7])
        recorder.request(.unlimited)
        XCTAssertEqual(recorder.values, [6, 7, 8, 9, 10])
        XCTAssertEqual(recorder.completions, [.finished])
    }

    func testFilterOfFilterIsFused() {
        let fused: Publishers.Filter<Publishers.Sequence<ClosedRange<Int>, Never>> = (1...20).publisher
            .filter { $0.isMultiple(of: 2) }
            .filter { $0.isMultiple(of: 3) }
        let recorder = Recorder<Int, Never>()
        fused.subscribe(recorder)
        XCTAssertEqual(recorder.values, [6, 12, 18])
    }
}

/// Regression: operator subscriptions used to keep their subscriber in a `let`, so a subscriber that holds its
/// subscription (as most hand-written ones do) formed a cycle that cancel did not break.
final class OperatorReleaseRegressionTests: XCTestCase {
    private func assertReleasedAfterCancel<P: Publisher>(
        _ name: String, _ make: (PassthroughSubject<Int, Never>) -> P, file: StaticString = #filePath,
        line: UInt = #line
    ) {
        let subject = PassthroughSubject<Int, Never>()
        weak var weakRecorder: Recorder<P.Output, P.Failure>?
        var subscription: Subscription?
        do {
            let recorder = Recorder<P.Output, P.Failure>()
            weakRecorder = recorder
            make(subject).subscribe(recorder)
            subscription = recorder.subscription
        }
        subscription?.cancel()
        XCTAssertNil(weakRecorder, "\(name) kept its subscriber after cancel", file: file, line: line)
    }

    func testEveryHandWrittenSubscriptionReleasesItsSubscriberOnCancel() {
        assertReleasedAfterCancel("tryMap") { $0.tryMap { $0 } }
        assertReleasedAfterCancel("compactMap") { $0.compactMap { $0 } }
        assertReleasedAfterCancel("dropFirst") { $0.dropFirst(2) }
        assertReleasedAfterCancel("collect(_:)") { $0.collect(2) }
        assertReleasedAfterCancel("count") { $0.count() }
        assertReleasedAfterCancel("handleEvents") { $0.handleEvents() }
        assertReleasedAfterCancel("catch") { $0.setFailureType(to: TestError.self).catch { _ in Empty<Int, Never>() } }
        assertReleasedAfterCancel("merge") { $0.merge(with: Empty<Int, Never>(completeImmediately: false)) }
        assertReleasedAfterCancel("removeDuplicates") { $0.removeDuplicates() }
        assertReleasedAfterCancel("scan") { $0.scan(0, +) }
        assertReleasedAfterCancel("prefix(while:)") { $0.prefix { $0 < 10 } }
    }
}
