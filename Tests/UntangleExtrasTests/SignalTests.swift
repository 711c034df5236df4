import Foundation
import Untangle
import UntangleExtras
import UntangleSync
import XCTest

final class SignalTests: XCTestCase {
    func testEmitsInLineOnMainAndReplaysNothingToALateSubscriber() {
        drainMainQueue()
        let relay = PassthroughRelay<Int>()
        let signal = relay.asSignal()
        var first: [Int] = []
        let a = signal.emit { first.append($0) }
        relay.accept(1)
        XCTAssertEqual(first, [1], "sent on the main queue: delivered in line, as RxCocoa's Signal does")
        var late: [Int] = []
        let b = signal.emit { late.append($0) }
        XCTAssertEqual(late, [], "a Signal replays nothing")
        relay.accept(2)
        XCTAssertEqual(first, [1, 2])
        XCTAssertEqual(late, [2])
        withExtendedLifetime((a, b)) {}
    }

    func testSharesOneSubscriptionAndReconnectsAfterTheLastCancel() {
        let source = ManualPublisher<Int, Never>(recordsSubscriptions: true)
        let signal = Signal(source)
        let a = signal.emit { _ in }
        let b = signal.emit { _ in }
        XCTAssertEqual(source.subscriptions, 1)
        a.cancel()
        b.cancel()
        let c = signal.emit { _ in }
        XCTAssertEqual(source.subscriptions, 2, "the next subscriber connects again (.whileConnected)")
        withExtendedLifetime(c) {}
    }

    func testAFailureIsReplacedAndEventsFromOtherThreadsArriveOnMain() {
        let subject = PassthroughSubject<Int, TestError>()
        let values = LockedBox<[Int]>([])
        let onMain = LockedBox(true)
        let finished = expectation(description: "finished")
        let cancellable = subject.asSignal(onErrorJustReturn: -1).sink(
            receiveCompletion: { _ in finished.fulfill() },
            receiveValue: { value in
                values.withLock { $0.append(value) }
                onMain.withLock { $0 = $0 && Thread.isMainThread }
            })
        DispatchQueue.global().async {
            subject.send(1)
            subject.send(completion: .failure(TestError(0)))
        }
        wait(for: [finished], timeout: 30)
        XCTAssertEqual(values.withLock { $0 }, [1, -1])
        XCTAssertTrue(onMain.withLock { $0 })
        withExtendedLifetime(cancellable) {}
    }

    func testSignalWithAndRecoverAndJust() {
        drainMainQueue()
        var got: [Int] = []
        let both = expectation(description: "both fallbacks delivered")
        both.expectedFulfillmentCount = 2
        let a = Fail<Int, TestError>(error: TestError(3)).asSignal(onErrorRecover: { .just($0.code) }).emit {
            got.append($0)
            both.fulfill()
        }
        let b = Fail<Int, TestError>(error: TestError(1)).asSignal(onErrorSignalWith: .just(9)).emit {
            got.append($0)
            both.fulfill()
        }
        let c = Signal<Int>.empty().emit { got.append($0) }
        // Each fallback's value goes through two hops (the fallback signal's and this one's); the failure that
        // starts it may arrive behind the other subscription's queued value, so wait for both rather than count.
        wait(for: [both], timeout: 30)
        XCTAssertEqual(got.sorted(), [3, 9])
        withExtendedLifetime((a, b, c)) {}
    }
}
