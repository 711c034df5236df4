import Foundation
import Untangle
import UntangleSync
import XCTest

/// A TextOutputStream that collects lines (a class, so the copy `print(to:)` keeps writes into the same storage).
private final class LineCollector: TextOutputStream, @unchecked Sendable {
    private let lines = LockedBox<String>("")
    func write(_ string: String) { lines.withLock { $0 += string } }
    var text: String { lines.withLock { $0 } }
}

private struct CollectorStream: TextOutputStream {
    let collector: LineCollector
    mutating func write(_ string: String) { collector.write(string) }
}

final class HandleEventsTests: XCTestCase {
    func testEveryHookSeesItsEventAndValuesPassThrough() {
        let log = LockedBox<[String]>([])
        let upstream = ManualPublisher<Int, TestError>()
        let recorder = Recorder<Int, TestError>(initialDemand: .max(2)) { _, _ in .max(1) }
        upstream.handleEvents(
            receiveSubscription: { _ in log.withLock { $0.append("subscription") } },
            receiveOutput: { value in log.withLock { $0.append("output \(value)") } },
            receiveCompletion: { _ in log.withLock { $0.append("completion") } },
            receiveCancel: { log.withLock { $0.append("cancel") } },
            receiveRequest: { demand in log.withLock { $0.append("request \(demand)") } }
        ).subscribe(recorder)
        XCTAssertEqual(upstream.send(1), .max(1))
        upstream.send(completion: .finished)
        XCTAssertEqual(
            log.withLock { $0 }, ["subscription", "request max(2)", "output 1", "request max(1)", "completion"])
        XCTAssertEqual(
            recorder.events, [.subscription("HandleEvents"), .value(1), .completion(.finished)])
        XCTAssertEqual(upstream.history, [.request(.max(2))])
    }

    func testCancelHookRunsOnceAndCancelReachesUpstream() {
        let cancels = LockedBox(0)
        let upstream = ManualPublisher<Int, Never>()
        let recorder = Recorder<Int, Never>(initialDemand: .unlimited)
        upstream.handleEvents(receiveCancel: { cancels.withLock { $0 += 1 } }).subscribe(recorder)
        recorder.cancel()
        recorder.cancel()
        XCTAssertEqual(cancels.withLock { $0 }, 1)
        XCTAssertEqual(upstream.history, [.request(.unlimited), .cancel])
        upstream.send(1)
        XCTAssertEqual(recorder.values, [], "nothing after cancel")
    }

    func testReleasesTheSubscriberAfterCancel() {
        let subject = PassthroughSubject<Int, Never>()
        weak var weakRecorder: Recorder<Int, Never>?
        var subscription: Subscription?
        do {
            let recorder = Recorder<Int, Never>()
            weakRecorder = recorder
            subject.handleEvents().subscribe(recorder)
            subscription = recorder.subscription
        }
        subscription?.cancel()
        XCTAssertNil(weakRecorder)
    }
}

final class PrintTests: XCTestCase {
    func testLogsLikeCombine() {
        let collector = LineCollector()
        let recorder = Recorder<Int, Never>(initialDemand: .max(1)) { _, _ in .max(1) }
        [1, 2].publisher.print("nums", to: CollectorStream(collector: collector)).subscribe(recorder)
        XCTAssertEqual(
            collector.text,
            """
            nums: receive subscription: (Sequence)
            nums: request max: (1)
            nums: receive value: (1)
            nums: request max: (1) (synchronous)
            nums: receive value: (2)
            nums: request max: (1) (synchronous)
            nums: receive finished

            """)
        XCTAssertEqual(recorder.values, [1, 2])
    }

    func testNoPrefixErrorAndCancel() {
        let collector = LineCollector()
        let subject = PassthroughSubject<Int, TestError>()
        let recorder = Recorder<Int, TestError>()
        subject.print(to: CollectorStream(collector: collector)).subscribe(recorder)
        recorder.cancel()
        let failing = Recorder<Int, TestError>()
        Fail<Int, TestError>(error: TestError(3)).print(to: CollectorStream(collector: collector)).subscribe(failing)
        XCTAssertEqual(
            collector.text,
            """
            receive subscription: (PassthroughSubject)
            request unlimited
            receive cancel
            receive subscription: (Empty)
            request unlimited
            receive error: (TestError(3))

            """)
    }
}

final class BreakpointTests: XCTestCase {
    func testPassesEverythingThroughWhenNoClosureAsksToStop() {
        let recorder = Recorder<Int, TestError>()
        let seen = LockedBox(0)
        [1, 2].publisher.setFailureType(to: TestError.self)
            .breakpoint(
                receiveSubscription: { _ in false },
                receiveOutput: { _ in
                    seen.withLock { $0 += 1 }
                    return false
                },
                receiveCompletion: { _ in false }
            )
            .breakpointOnError()
            .subscribe(recorder)
        XCTAssertEqual(seen.withLock { $0 }, 2)
        XCTAssertEqual(recorder.events, [.subscription("Breakpoint"), .value(1), .value(2), .completion(.finished)])
    }
}

final class AssertNoFailureTests: XCTestCase {
    func testRepublishesValuesAndFinish() {
        let recorder = Recorder<Int, Never>(initialDemand: .max(1))
        [1, 2].publisher.setFailureType(to: TestError.self).assertNoFailure("never").subscribe(recorder)
        XCTAssertEqual(recorder.values, [1])
        recorder.request(.max(1))
        XCTAssertEqual(
            recorder.events, [.subscription("AssertNoFailure"), .value(1), .value(2), .completion(.finished)])
    }
}

private struct Point: Codable, Equatable {
    let x: Int
    let y: Int
}

final class CodingTests: XCTestCase {
    func testEncodeThenDecodeRoundTripsWithJSON() {
        let recorder = Recorder<Point, Error>()
        [Point(x: 1, y: 2), Point(x: 3, y: 4)].publisher
            .encode(encoder: JSONEncoder())
            .decode(type: Point.self, decoder: JSONDecoder())
            .subscribe(recorder)
        XCTAssertEqual(recorder.values, [Point(x: 1, y: 2), Point(x: 3, y: 4)])
        XCTAssertEqual(recorder.completions.count, 1)
    }

    func testPropertyListCodersWork() {
        let recorder = Recorder<Point, Error>()
        Just(Point(x: 5, y: 6)).encode(encoder: PropertyListEncoder())
            .decode(type: Point.self, decoder: PropertyListDecoder())
            .subscribe(recorder)
        XCTAssertEqual(recorder.values, [Point(x: 5, y: 6)])
    }

    func testDecodingErrorCancelsUpstreamAndFails() {
        let upstream = ManualPublisher<Data, Never>()
        let recorder = Recorder<Point, Error>()
        upstream.decode(type: Point.self, decoder: JSONDecoder()).subscribe(recorder)
        upstream.send(Data("{\"x\": 1, \"y\": 2}".utf8))
        upstream.send(Data("not json".utf8))
        upstream.send(Data("{\"x\": 9, \"y\": 9}".utf8))
        XCTAssertEqual(recorder.values, [Point(x: 1, y: 2)])
        XCTAssertEqual(recorder.completions.count, 1)
        guard case .failure(let error)? = recorder.completions.first else { return XCTFail() }
        XCTAssertTrue(error is DecodingError, "got \(error)")
        XCTAssertEqual(upstream.history, [.request(.unlimited), .cancel])
    }
}
