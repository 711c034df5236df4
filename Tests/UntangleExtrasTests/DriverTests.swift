import Foundation
import Untangle
import UntangleExtras
import XCTest

final class DriverTests: XCTestCase {
    func testDeliversOnTheMainQueueAndReplacesTheErrorWithTheFallbackValue() {
        let subject = PassthroughSubject<Int, TestError>()
        let driver = subject.asDriver(onErrorJustReturn: -1)
        let done = expectation(description: "finished")
        let recorder = MainThreadRecorder()
        let cancellable = driver.sink(receiveCompletion: { _ in done.fulfill() }, receiveValue: recorder.record)
        DispatchQueue.global().async {
            subject.send(1)
            subject.send(completion: .failure(TestError(0)))
        }
        wait(for: [done], timeout: 30)
        XCTAssertEqual(recorder.values, [1, -1])
        XCTAssertTrue(recorder.allOnMain)
        withExtendedLifetime(cancellable) {}
    }

    func testSharesOneSubscriptionAndReplaysTheLatestToALateSubscriber() {
        let source = ManualPublisher<Int, Never>(recordsSubscriptions: true)
        let driver = source.asDriver()
        let first = MainThreadRecorder()
        let a = driver.drive(first.record)
        source.send(1)
        source.send(2)
        let late = MainThreadRecorder()
        let b = driver.drive(late.record)
        let drained = expectation(description: "main queue drained")
        DispatchQueue.main.async { drained.fulfill() }
        wait(for: [drained], timeout: 30)
        XCTAssertEqual(first.values, [1, 2])
        XCTAssertEqual(late.values, [2], "the latest value is replayed")
        XCTAssertEqual(source.subscriptions, 1)
        XCTAssertTrue(late.allOnMain)
        withExtendedLifetime((a, b)) {}
    }

    func testRecoverAndDriveWithAndJust() {
        let recovered = Fail<Int, TestError>(error: TestError(7)).asDriver(onErrorRecover: { .just($0.code) })
        let driven = Fail<Int, TestError>(error: TestError(1)).asDriver(onErrorDriveWith: .just(99))
        let recorder = MainThreadRecorder()
        let done = expectation(description: "both finished")
        done.expectedFulfillmentCount = 2
        let a = recovered.sink(receiveCompletion: { _ in done.fulfill() }, receiveValue: recorder.record)
        let b = driven.sink(receiveCompletion: { _ in done.fulfill() }, receiveValue: recorder.record)
        wait(for: [done], timeout: 30)
        XCTAssertEqual(recorder.values.sorted(), [7, 99])
        let empty = expectation(description: "empty finished")
        let c = Driver<Int>.empty().sink(receiveCompletion: { _ in empty.fulfill() }, receiveValue: { _ in })
        wait(for: [empty], timeout: 30)
        withExtendedLifetime((a, b, c)) {}
    }

    // Regression (issue 30): the driver delivered a turn of the main queue later, so a label driven from
    // `viewDidLoad` stayed empty for a frame and a synchronous test of a view model saw nothing. RxCocoa's Driver
    // delivers in line on the main queue (MainScheduler), replayed value included.
    func testDeliversInLineOnTheMainQueueLikeRxCocoa() {
        drainMainQueue()
        let relay = CurrentValueRelay(1)
        let driver = relay.asDriver()
        var first: [Int] = []
        let a = driver.drive { first.append($0) }
        XCTAssertEqual(first, [1], "the current value, in line inside drive")
        relay.accept(2)
        XCTAssertEqual(first, [1, 2], "a value sent on the main queue, in line")
        var late: [Int] = []
        let b = driver.drive { late.append($0) }
        XCTAssertEqual(late, [2], "the replayed value, in line inside drive")
        withExtendedLifetime((a, b)) {}
    }

    // ReactiveX/RxSwift 8e6d467d (issue 1253): a driver sometimes sent its first value a turn of the main queue later,
    // so a chain of flatMapLatest into drivers made from synchronous sources gave nothing inside drive. On the main
    // queue every step delivers in line: the chain's value is there when drive returns, and so is the next one.
    func testAChainOfFlatMapLatestIntoSynchronousDriversDeliversInsideDrive() {
        drainMainQueue()
        let state = CurrentValueRelay(1)
        var latest: [Int] = []
        let cancellable = state.asDriver()
            .flatMapLatest { Just($0 * 2).asDriver() }
            .flatMapLatest { Just($0).setFailureType(to: TestError.self).asDriver(onErrorJustReturn: -1) }
            .flatMapLatest {
                Fail<Int, TestError>(error: TestError(1)).prepend($0).asDriver(onErrorDriveWith: Empty().asDriver())
            }
            .asDriver()
            .drive { latest.append($0) }
        XCTAssertEqual(latest, [2])
        state.accept(5)
        XCTAssertEqual(latest, [2, 10])
        withExtendedLifetime(cancellable) {}
    }
}

/// Records values and whether each arrived on the main thread.
private final class MainThreadRecorder: @unchecked Sendable {
    private let lock = NSLock()
    private var _values: [Int] = []
    private var _allOnMain = true

    func record(_ value: Int) {
        lock.lock()
        _values.append(value)
        _allOnMain = _allOnMain && Thread.isMainThread
        lock.unlock()
    }

    var values: [Int] {
        lock.lock()
        defer { lock.unlock() }
        return _values
    }

    var allOnMain: Bool {
        lock.lock()
        defer { lock.unlock() }
        return _allOnMain
    }
}
