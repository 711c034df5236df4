import Foundation
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

final class FlatMapLatestConcurrencyTests: XCTestCase {
    // ReactiveX/RxSwift a830a94b (issue 1344): flatMapLatest subscribed to each new inner under its lock, so an inner
    // that waited, while being subscribed, for a value it sends from another thread deadlocked: that value needed the
    // same lock. The inner is subscribed with no library lock held; its value arrives meanwhile.
    func testAnInnerWaitingWhileSubscribedForItsValueFromAnotherThreadDoesNotDeadlock() {
        let source = PassthroughSubject<Int, Never>()
        let delivered = DispatchSemaphore(value: 0)
        let innersThatSawTheirValue = Counter()
        let recorder = Recorder<Int, Never>()
        source.flatMapLatest { value in
            AnyPublisher<Int, Never>.create { inner in
                DispatchQueue.global().async { inner.send(value * 10) }
                if delivered.wait(timeout: .now() + 30) == .success { _ = innersThatSawTheirValue.increment() }
                return AnyCancellable {}
            }
        }
        .handleEvents(receiveOutput: { _ in delivered.signal() })
        .subscribe(recorder)
        withWatchdog("sending into flatMapLatest") {
            source.send(1)
            source.send(2)
        }
        XCTAssertEqual(innersThatSawTheirValue.value, 2)
        // handleEvents reports a value before passing it on: the second may still be on its way to the recorder.
        recorder.waitForValues(2)
        XCTAssertEqual(recorder.values, [10, 20])
    }
}
