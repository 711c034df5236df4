import Foundation
import Untangle
import UntangleExtras
import UntangleTesting
import XCTest

final class FlatMapFirstTests: XCTestCase {
    func testValuesArrivingWhileAnInnerIsActiveAreIgnored() {
        let outer = ManualPublisher<Int, TestError>(recordsSubscriptions: true)
        var made: [Int] = []
        let inners = [
            ManualPublisher<String, TestError>(recordsSubscriptions: true),
            ManualPublisher<String, TestError>(recordsSubscriptions: true),
            ManualPublisher<String, TestError>(recordsSubscriptions: true),
        ]
        let recorder = Recorder<String, TestError>(initialDemand: .max(3))
        outer.flatMapFirst { index -> ManualPublisher<String, TestError> in
            made.append(index)
            return inners[index]
        }.subscribe(recorder)
        XCTAssertEqual(outer.history, [.subscribed, .request(.unlimited)])
        outer.send(0)
        inners[0].send("a")
        outer.send(1)  // ignored: inner 0 is active
        inners[0].send("b")
        inners[0].finish()
        outer.send(2)
        inners[2].send("c")
        outer.finish()
        XCTAssertFalse(recorder.isCompleted, "waits for the active inner")
        inners[2].finish()
        XCTAssertEqual(made, [0, 2])
        XCTAssertEqual(
            recorder.events,
            [.subscription("FlatMapFirst"), .value("a"), .value("b"), .value("c"), .completion(.finished)])
        XCTAssertEqual(inners[0].history, [.subscribed, .request(.max(3))])
        XCTAssertEqual(inners[2].history, [.subscribed, .request(.max(1))], "the unmet demand carries over")
        XCTAssertEqual(inners[1].subscriptions, 0)
    }

    func testDemandLaterAndReturnedDemandGoToTheActiveInner() {
        let outer = ManualPublisher<Int, TestError>(recordsSubscriptions: true)
        let inner = ManualPublisher<Int, TestError>(recordsSubscriptions: true)
        let recorder = Recorder<Int, TestError>(initialDemand: nil, onValue: { $1 == 1 ? .max(2) : .none })
        outer.flatMapFirst { _ in inner }.subscribe(recorder)
        outer.send(0)
        XCTAssertEqual(inner.history, [.subscribed])
        recorder.request(.max(1))
        inner.send(1)
        inner.send(2)
        inner.send(3)
        inner.send(4)  // beyond demand: waits
        XCTAssertEqual(recorder.values, [1, 2, 3])
        XCTAssertEqual(inner.history, [.subscribed, .request(.max(1)), .request(.max(2))])
        recorder.request(.max(1))
        XCTAssertEqual(recorder.values, [1, 2, 3, 4])
    }

    func testCompletionWithZeroDemandAndEmptyOuter() {
        let recorder = Recorder<Int, Never>(initialDemand: nil)
        Empty<Int, Never>().flatMapFirst { Just($0) }.subscribe(recorder)
        XCTAssertEqual(recorder.events, [.subscription("FlatMapFirst"), .completion(.finished)])
    }

    func testFailuresAndCancel() {
        let outer = ManualPublisher<Int, TestError>(recordsSubscriptions: true)
        let inner = ManualPublisher<Int, TestError>(recordsSubscriptions: true)
        let recorder = Recorder<Int, TestError>()
        outer.flatMapFirst { _ in inner }.subscribe(recorder)
        outer.send(0)
        inner.send(completion: .failure(TestError(4)))
        inner.send(1)
        XCTAssertEqual(recorder.events, [.subscription("FlatMapFirst"), .completion(.failure(TestError(4)))])
        XCTAssertEqual(outer.history, [.subscribed, .request(.unlimited), .cancel])

        let outer2 = ManualPublisher<Int, TestError>(recordsSubscriptions: true)
        let inner2 = ManualPublisher<Int, TestError>(recordsSubscriptions: true)
        weak var weakRecorder: Recorder<Int, TestError>?
        do {
            let recorder2 = Recorder<Int, TestError>()
            weakRecorder = recorder2
            outer2.flatMapFirst { _ in inner2 }.subscribe(recorder2)
            outer2.send(0)
            recorder2.cancel()
            recorder2.cancel()
        }
        XCTAssertEqual(outer2.history, [.subscribed, .request(.unlimited), .cancel])
        XCTAssertEqual(inner2.history, [.subscribed, .request(.unlimited), .cancel])
        XCTAssertNil(weakRecorder)

        let outer3 = ManualPublisher<Int, TestError>(recordsSubscriptions: true)
        let recorder3 = Recorder<Int, TestError>()
        outer3.flatMapFirst { _ in inner2 }.subscribe(recorder3)
        outer3.send(completion: .failure(TestError(5)))
        XCTAssertEqual(recorder3.events, [.subscription("FlatMapFirst"), .completion(.failure(TestError(5)))])
    }

    // ReactiveX/RxSwift 9de36a77 (issue 573): a finished sequence's subscription, kept by its subscriber (in a dispose
    // bag), still held the operator and what it used until it was disposed. Once flatMapFirst has finished, or has
    // been cancelled, the subscription its subscriber keeps holds nothing the transform captured.
    func testAnEndedFlatMapFirstKeepsNothingTheTransformCaptured() {
        weak var weakInner: ManualPublisher<Int, TestError>?
        weak var weakCaptured: ManualPublisher<Int, TestError>?
        let finished = Recorder<Int, TestError>()
        let cancelled = Recorder<Int, TestError>()
        do {
            let inner = ManualPublisher<Int, TestError>(recordsSubscriptions: true)
            let captured = ManualPublisher<Int, TestError>(recordsSubscriptions: true)
            weakInner = inner
            weakCaptured = captured
            Just(1).setFailureType(to: TestError.self).flatMapFirst { _ in inner }.subscribe(finished)
            inner.send(5)
            inner.finish()
            PassthroughSubject<Int, TestError>().flatMapFirst { _ in captured }.subscribe(cancelled)
            cancelled.cancel()
        }
        XCTAssertEqual(finished.events, [.subscription("FlatMapFirst"), .value(5), .completion(.finished)])
        XCTAssertNotNil(finished.subscription, "the subscriber keeps its subscription")
        XCTAssertNotNil(cancelled.subscription)
        XCTAssertNil(weakInner)
        XCTAssertNil(weakCaptured)
    }

    func testNeverOverloads() {
        var values: [Int] = []
        let a = [1, 2].publisher.flatMapFirst { Just($0) }.sink { values.append($0) }
        let b = [3].publisher.setFailureType(to: TestError.self).flatMapFirst { Just($0) }
            .sink(receiveCompletion: { _ in }, receiveValue: { values.append($0) })
        let c = [4].publisher.flatMapFirst { Fail<Int, TestError>(error: TestError($0)) }
            .sink(receiveCompletion: { if case .failure(let e) = $0 { values.append(e.code) } }, receiveValue: { _ in })
        XCTAssertEqual(values, [1, 2, 3, 4], "synchronous inners finish before the next value")
        withExtendedLifetime((a, b, c)) {}
    }
}

final class FlatMapFirstConcurrencyTests: XCTestCase {
    func testOuterAndInnerOnDifferentThreadsDeliverSerially() {
        let outer = PassthroughSubject<Int, Never>()
        let inner = PassthroughSubject<Int, Never>()
        let detector = OverlapDetector()
        let count = Counter()
        let cancellable = outer.flatMapFirst { _ in inner }.sink { _ in detector.around { count.add(1) } }
        outer.send(0)
        runConcurrently(threads: 3) { thread in
            for i in 0..<1_000 {
                if thread == 0 { outer.send(i) } else { inner.send(i) }
            }
        }
        XCTAssertEqual(count.value, 2_000, "the first inner stays active; its values are all delivered")
        XCTAssertEqual(detector.overlaps, 0)
        withExtendedLifetime(cancellable) {}
    }
}
