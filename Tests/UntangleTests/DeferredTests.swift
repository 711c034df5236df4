import Untangle
import UntangleSync
import XCTest

final class DeferredTests: XCTestCase {
    func testCreatesThePublisherOncePerSubscriptionNotAtCreation() {
        let calls = Counter()
        let deferred = Deferred { () -> Just<Int> in
            Just(calls.increment())
        }
        XCTAssertEqual(calls.value, 0)
        let first = Recorder<Int, Never>()
        deferred.subscribe(first)
        XCTAssertEqual(calls.value, 1)
        let second = Recorder<Int, Never>()
        deferred.subscribe(second)
        XCTAssertEqual(calls.value, 2)
        XCTAssertEqual(first.events, [.subscription("Just"), .value(1), .completion(.finished)])
        XCTAssertEqual(second.events, [.subscription("Just"), .value(2), .completion(.finished)])
    }

    func testTheSubscriberIsAttachedDirectlyToTheCreatedPublisher() {
        let upstream = ManualPublisher<Int, TestError>()
        let recorder = Recorder<Int, TestError>(initialDemand: .max(2))
        Deferred { upstream }.subscribe(recorder)
        upstream.send(1)
        upstream.send(completion: .failure(TestError(9)))
        XCTAssertEqual(
            recorder.events,
            [.subscription("ManualSubscription"), .value(1), .completion(.failure(TestError(9)))])
        XCTAssertEqual(upstream.history, [.request(.max(2))])
        recorder.cancel()
        XCTAssertEqual(upstream.history, [.request(.max(2)), .cancel])
    }

    func testDemandIsThatOfTheCreatedPublisher() {
        let recorder = Recorder<Int, Never>(initialDemand: nil)
        Deferred { [1, 2, 3].publisher }.subscribe(recorder)
        XCTAssertEqual(recorder.events, [.subscription("[1, 2, 3]")])
        recorder.request(.max(2))
        XCTAssertEqual(recorder.events, [.subscription("[1, 2, 3]"), .value(1), .value(2)])
        recorder.request(.max(1))
        XCTAssertEqual(recorder.values, [1, 2, 3])
        XCTAssertEqual(recorder.completions, [.finished])
    }

    func testTheClosureRunsOnTheSubscribingThreadWithNoLibraryLockHeld() {
        let locksHeld = LockedBox<[Int]>([])
        let deferred = Deferred { () -> Just<Int> in
            locksHeld.withLock { $0.append(CalloutCheck.heldByCurrentThread) }
            return Just(0)
        }
        deferred.subscribe(Recorder<Int, Never>())
        XCTAssertEqual(locksHeld.withLock { $0 }, [0])
    }

    func testSubscriberIsNotRetainedAfterCompletion() {
        assertSubscriptionReleasesSubscriber(Deferred { [1, 2].publisher })
    }
}

// Scenarios of bugs other implementations shipped and later fixed.
extension DeferredTests {
    // ReactiveX/RxSwift 214f7ffc (issue 2533): a subscription to a deferred publisher kept the factory closure (and
    // what it captured) alive after the factory had run.
    func testALiveSubscriptionDoesNotKeepTheFactoryOrWhatItCaptured() {
        weak var weakCaptured: Token?
        let recorder = Recorder<Int, Never>()
        do {
            let captured = Token(1)
            weakCaptured = captured
            Deferred { () -> Empty<Int, Never> in
                _ = captured
                return Empty(completeImmediately: false)
            }
            .subscribe(recorder)
        }
        XCTAssertEqual(recorder.events, [.subscription("Empty")])
        XCTAssertNil(weakCaptured, "released once the factory ran, while the subscription lives on")
    }
}
