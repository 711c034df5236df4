import Foundation
import Untangle
import UntangleExtras
import XCTest

final class CollectionZipTests: XCTestCase {
    func testPairsTheNthValuesOfEveryPublisherInOrder() {
        let a = PassthroughSubject<String, TestError>()
        let b = PassthroughSubject<String, TestError>()
        let c = PassthroughSubject<String, TestError>()
        let recorder = Recorder<[String], TestError>()
        [a, b, c].zip().subscribe(recorder)
        a.send("a1")
        a.send("a2")
        b.send("b1")
        c.send("c1")
        b.send("b2")
        c.send("c2")
        XCTAssertEqual(recorder.values, [["a1", "b1", "c1"], ["a2", "b2", "c2"]])
        XCTAssertEqual(recorder.completions, [])
    }

    func testFinishesWhenAFinishedPublisherHasNoValueLeftAsCombinesZip() {
        let a = PassthroughSubject<Int, TestError>()
        let b = PassthroughSubject<Int, TestError>()
        let recorder = Recorder<[Int], TestError>()
        [a, b].zip().subscribe(recorder)
        a.send(1)
        a.send(completion: .finished)
        XCTAssertEqual(recorder.completions, [], "a value of the finished publisher is still waiting for a partner")
        b.send(10)
        XCTAssertEqual(recorder.values, [[1, 10]])
        XCTAssertEqual(recorder.completions, [.finished])
    }

    // ReactiveX/RxSwift 9e723c8f (issue 1205): zip of an empty array never completed. It finishes at once, with no
    // array (zip pairs values; there are none to pair), and asks nothing of anyone.
    func testAnEmptyCollectionFinishesAtOnceWithoutAValue() {
        let none = Recorder<[Int], TestError>(initialDemand: nil)
        [PassthroughSubject<Int, TestError>]().zip().subscribe(none)
        XCTAssertEqual(none.values, [])
        XCTAssertEqual(none.completions, [.finished], "without waiting for demand")
    }

    func testAFailureFailsTheResultAndNoneFinishesAtOnce() {
        let a = PassthroughSubject<Int, TestError>()
        let b = PassthroughSubject<Int, TestError>()
        let recorder = Recorder<[Int], TestError>()
        [a, b].zip().subscribe(recorder)
        b.send(completion: .failure(TestError(2)))
        XCTAssertEqual(recorder.values, [])
        XCTAssertEqual(recorder.completions, [.failure(TestError(2))])
        let none = Recorder<[Int], Never>()
        [Just<Int>]().zip().subscribe(none)
        XCTAssertEqual(none.completions, [.finished])
    }
}

final class CollectionZipConcurrencyTests: XCTestCase {
    // ReactiveX/RxSwift b3e3ce15 and f68d4bce (issue 2703): zip of an array unsubscribed from its sources under its
    // own lock, so a source whose teardown takes a lock deadlocked against a thread holding that lock and sending into
    // the zip. Here one publisher runs out, the zip finishes and cancels the other, whose cancel waits for a lock held
    // by a thread that sends into that other publisher: the cancel runs with no library lock held.
    func testCancellingASourceWhoseTeardownWaitsForALockHeldByASenderDoesNotDeadlock() {
        for _ in 0..<3 {
            let first = PassthroughSubject<Int, Never>()
            let second = PassthroughSubject<Int, Never>()
            let foreign = NSRecursiveLock()
            let holderLocked = DispatchSemaphore(value: 0)
            let teardownStarted = DispatchSemaphore(value: 0)
            let teardownsThatGotTheLock = Counter()
            let secondWithLockingTeardown = second.handleEvents(receiveCancel: {
                teardownStarted.signal()
                foreign.lock()
                _ = teardownsThatGotTheLock.increment()
                foreign.unlock()
            })
            let recorder = Recorder<[Int], Never>()
            [first.eraseToAnyPublisher(), secondWithLockingTeardown.eraseToAnyPublisher()].zip().subscribe(recorder)
            runConcurrently(threads: 2, timeout: 60) { thread in
                if thread == 0 {
                    foreign.lock()
                    holderLocked.signal()
                    _ = teardownStarted.wait(timeout: .now() + 30)
                    second.send(1)
                    foreign.unlock()
                } else {
                    _ = holderLocked.wait(timeout: .now() + 30)
                    first.send(completion: .finished)
                }
            }
            XCTAssertEqual(teardownsThatGotTheLock.value, 1)
            XCTAssertEqual(recorder.values, [])
            XCTAssertEqual(recorder.completions, [.finished])
        }
    }
}
