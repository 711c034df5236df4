import Foundation
import Untangle
import UntangleSync
import UntangleTesting
import XCTest

/// Tuples are not Equatable: histories are compared through their descriptions.
private func history<Value, Failure>(_ recorder: Recorder<Value, Failure>) -> [String] {
    recorder.events.map(\.description)
}

final class ZipTests: XCTestCase {
    func testPairsTheOldestUnconsumedValueOfEachUpstream() {
        let a = PassthroughSubject<Int, TestError>()
        let b = PassthroughSubject<String, TestError>()
        let recorder = Recorder<(Int, String), TestError>()
        a.zip(b).subscribe(recorder)
        a.send(1)
        a.send(2)
        XCTAssertEqual(history(recorder), ["subscription(Zip)"])
        b.send("x")
        b.send("y")
        b.send("z")
        a.send(3)
        XCTAssertEqual(
            history(recorder), ["subscription(Zip)", "value((1, \"x\"))", "value((2, \"y\"))", "value((3, \"z\"))"])
    }

    func testFinishesOnlyWhenAFinishedUpstreamHasNoUnpairedValueLeft() {
        let a = ManualPublisher<Int, Never>()
        let b = ManualPublisher<Int, Never>()
        let recorder = Recorder<(Int, Int), Never>()
        a.zip(b).subscribe(recorder)
        a.send(1)
        a.send(2)
        a.send(completion: .finished)
        XCTAssertEqual(history(recorder), ["subscription(Zip)"])
        b.send(10)
        XCTAssertEqual(history(recorder), ["subscription(Zip)", "value((1, 10))"])
        b.send(20)
        XCTAssertEqual(history(recorder), ["subscription(Zip)", "value((1, 10))", "value((2, 20))", "finished"])
        XCTAssertEqual(a.history, [.request(.unlimited)])
        XCTAssertEqual(b.history, [.request(.unlimited), .cancel], "the unfinished upstream is cancelled")
    }

    func testAnUpstreamFinishingWithNothingUnpairedFinishesAtOnceAndDropsTheOthersValues() {
        let a = ManualPublisher<Int, Never>()
        let b = ManualPublisher<Int, Never>()
        let recorder = Recorder<(Int, Int), Never>()
        a.zip(b).subscribe(recorder)
        b.send(1)
        b.send(2)
        a.send(completion: .finished)
        b.send(3)
        XCTAssertEqual(history(recorder), ["subscription(Zip)", "finished"])
        XCTAssertEqual(b.history, [.request(.unlimited), .cancel])
    }

    func testCompletionNeedsNoDemand() {
        let a = ManualPublisher<Int, Never>()
        let b = ManualPublisher<Int, Never>()
        let recorder = Recorder<(Int, Int), Never>(initialDemand: nil)
        a.zip(b).subscribe(recorder)
        b.send(completion: .finished)
        XCTAssertEqual(history(recorder), ["subscription(Zip)", "finished"])
        XCTAssertEqual(a.history, [.cancel])
    }

    // As in Combine, the failed upstream is cancelled along with the others.
    func testFailureCancelsEveryUpstreamTheFailedOneTooAndNothingFollows() {
        let a = ManualPublisher<Int, TestError>()
        let b = ManualPublisher<Int, TestError>()
        let c = ManualPublisher<Int, TestError>()
        let recorder = Recorder<(Int, Int, Int), TestError>(initialDemand: .max(3))
        a.zip(b, c).subscribe(recorder)
        a.send(1)
        b.send(2)
        c.send(3)
        b.send(completion: .failure(TestError(7)))
        a.send(4)
        a.send(completion: .failure(TestError(8)))
        XCTAssertEqual(history(recorder), ["subscription(Zip)", "value((1, 2, 3))", "failure(TestError(7))"])
        XCTAssertEqual(a.history, [.request(.max(3)), .cancel])
        XCTAssertEqual(b.history, [.request(.max(3)), .cancel])
        XCTAssertEqual(c.history, [.request(.max(3)), .cancel])
    }

    func testInitialDemandZeroThenLaterRequestIsForwardedToEveryUpstream() {
        let a = ManualPublisher<Int, Never>()
        let b = ManualPublisher<Int, Never>()
        let recorder = Recorder<(Int, Int), Never>(initialDemand: nil)
        a.zip(b).subscribe(recorder)
        XCTAssertEqual(a.history, [])
        recorder.request(.max(2))
        XCTAssertEqual(a.history, [.request(.max(2))])
        XCTAssertEqual(b.history, [.request(.max(2))])
        a.send(1)
        b.send(1)
        XCTAssertEqual(history(recorder), ["subscription(Zip)", "value((1, 1))"])
    }

    // As in Combine: the upstream whose value completed the tuple gets the returned demand as the return value of
    // its `receive(_:)`; the others are asked with a request.
    func testDemandReturnedFromReceiveGoesBackToTheCompletingUpstreamAndIsRequestedFromTheOthers() {
        let a = ManualPublisher<Int, Never>()
        let b = ManualPublisher<Int, Never>()
        let recorder = Recorder<(Int, Int), Never>(initialDemand: .max(1)) { _, _ in .max(1) }
        a.zip(b).subscribe(recorder)
        XCTAssertEqual(a.send(1), .none)
        XCTAssertEqual(b.send(1), .max(1))
        XCTAssertEqual(a.history, [.request(.max(1)), .request(.max(1))])
        XCTAssertEqual(b.history, [.request(.max(1))])
        XCTAssertEqual(b.send(2), .none)
        XCTAssertEqual(a.send(2), .max(1))
        XCTAssertEqual(a.history, [.request(.max(1)), .request(.max(1))])
        XCTAssertEqual(b.history, [.request(.max(1)), .request(.max(1))])
        XCTAssertEqual(history(recorder), ["subscription(Zip)", "value((1, 1))", "value((2, 2))"])
    }

    func testARequestFromInsideTheDeliveryGoesBackToTheCompletingUpstreamAndToTheOthersAsARequest() {
        let a = ManualPublisher<Int, Never>()
        let b = ManualPublisher<Int, Never>()
        let c = ManualPublisher<Int, Never>()
        let recorder = Recorder<(Int, Int, Int), Never>(initialDemand: .max(2)) { recorder, _ in
            recorder.request(.max(7))
            return .max(1)
        }
        a.zip(b, c).subscribe(recorder)
        XCTAssertEqual(a.send(1), .none)
        XCTAssertEqual(c.send(1), .none)
        XCTAssertEqual(b.send(1), .max(8))
        XCTAssertEqual(a.history, [.request(.max(2)), .request(.max(7)), .request(.max(1))])
        XCTAssertEqual(b.history, [.request(.max(2))])
        XCTAssertEqual(c.history, [.request(.max(2)), .request(.max(7)), .request(.max(1))])
        recorder.request(.max(3))
        XCTAssertEqual(b.history, [.request(.max(2)), .request(.max(3))], "a request from outside goes to all")
    }

    func testTuplesBeyondDemandWaitForARequest() {
        // A misbehaving upstream sends more than requested: the extra tuple waits instead of overflowing demand.
        let a = ManualPublisher<Int, Never>()
        let b = ManualPublisher<Int, Never>()
        let recorder = Recorder<(Int, Int), Never>(initialDemand: .max(1))
        a.zip(b).subscribe(recorder)
        a.send(1)
        a.send(2)
        b.send(1)
        b.send(2)
        XCTAssertEqual(history(recorder), ["subscription(Zip)", "value((1, 1))"])
        recorder.request(.max(1))
        XCTAssertEqual(history(recorder), ["subscription(Zip)", "value((1, 1))", "value((2, 2))"])
    }

    func testSynchronousUpstreamsWithReentrantRequests() {
        let recorder = Recorder<(Int, String), Never>(initialDemand: .max(1)) { recorder, _ in
            recorder.request(.max(1))
            return .none
        }
        [1, 2, 3].publisher.zip(["a", "b"].publisher).subscribe(recorder)
        XCTAssertEqual(
            history(recorder), ["subscription(Zip)", "value((1, \"a\"))", "value((2, \"b\"))", "finished"])
    }

    func testLongSynchronousUpstreamsOneAtATime() {
        let recorder = Recorder<Int, Never>(initialDemand: .max(1)) { _, _ in .max(1) }
        (0..<10_000).publisher.zip((0..<10_000).publisher) { $0 + $1 }.subscribe(recorder)
        XCTAssertEqual(recorder.values, (0..<10_000).map { $0 * 2 })
        XCTAssertEqual(recorder.completions, [.finished])
    }

    func testEveryArityWithAndWithoutTransform() {
        let j = (1...4).map { Just($0) }
        func values<P: Publisher>(_ publisher: P) -> [String] where P.Failure == Never {
            let recorder = Recorder<P.Output, Never>()
            publisher.subscribe(recorder)
            XCTAssertEqual(recorder.completions, [.finished])
            return recorder.values.map { "\($0)" }
        }
        XCTAssertEqual(values(j[0].zip(j[1])), ["(1, 2)"])
        XCTAssertEqual(values(j[0].zip(j[1], j[2])), ["(1, 2, 3)"])
        XCTAssertEqual(values(j[0].zip(j[1], j[2], j[3])), ["(1, 2, 3, 4)"])
        XCTAssertEqual(values(j[0].zip(j[1]) { $0 * 10 + $1 }), ["12"])
        XCTAssertEqual(values(j[0].zip(j[1], j[2]) { $0 * 100 + $1 * 10 + $2 }), ["123"])
        XCTAssertEqual(values(j[0].zip(j[1], j[2], j[3]) { $0 * 1000 + $1 * 100 + $2 * 10 + $3 }), ["1234"])
        XCTAssertEqual(values(Publishers.Zip(j[0], Just("b"))), ["(1, \"b\")"])
        XCTAssertEqual(values(Publishers.Zip3(j[0], j[1], Just("c"))), ["(1, 2, \"c\")"])
        XCTAssertEqual(values(Publishers.Zip4(j[0], j[1], j[2], Just("d"))), ["(1, 2, 3, \"d\")"])
        let typed: Publishers.Map<Publishers.Zip3<Just<Int>, Just<Int>, Just<Int>>, Int> = j[0].zip(j[1], j[2]) {
            $0 + $1 + $2
        }
        XCTAssertEqual(values(typed), ["6"])
    }

    func testEquatableWhenUpstreamsAre() {
        XCTAssertEqual(Just(1).zip(Just(2)), Just(1).zip(Just(2)))
        XCTAssertNotEqual(Just(1).zip(Just(2)), Just(1).zip(Just(3)))
        XCTAssertEqual(Just(1).zip(Just(2), Just(3)), Just(1).zip(Just(2), Just(3)))
        XCTAssertNotEqual(Just(1).zip(Just(2), Just(3), Just(4)), Just(1).zip(Just(2), Just(3), Just(5)))
    }

    func testCancelCancelsEveryUpstreamOnceAndStopsDelivery() {
        let a = ManualPublisher<Int, Never>()
        let b = ManualPublisher<Int, Never>()
        let recorder = Recorder<(Int, Int), Never>()
        a.zip(b).subscribe(recorder)
        a.send(1)
        recorder.cancel()
        recorder.cancel()
        b.send(1)
        b.send(completion: .finished)
        XCTAssertEqual(history(recorder), ["subscription(Zip)"])
        XCTAssertEqual(a.history, [.request(.unlimited), .cancel])
        XCTAssertEqual(b.history, [.request(.unlimited), .cancel])
    }

    func testCancelBeforeUpstreamsSubscribeCancelsThemOnArrival() {
        let a = ManualPublisher<Int, Never>()
        let b = ManualPublisher<Int, Never>()
        let recorder = Recorder<(Int, Int), Never>(initialDemand: nil) { _, _ in
            .none
        } onSubscription: {
            $1.cancel()
        }
        a.zip(b).subscribe(recorder)
        XCTAssertEqual(a.history, [.cancel])
        XCTAssertEqual(b.history, [.cancel])
        XCTAssertEqual(history(recorder), ["subscription(Zip)"])
    }

    func testCancelDuringEmissionStopsFurtherTuples() {
        let recorder = Recorder<(Int, Int), Never> { recorder, _ in
            recorder.cancel()
            return .none
        }
        [1, 2, 3].publisher.zip([1, 2, 3].publisher).subscribe(recorder)
        XCTAssertEqual(history(recorder), ["subscription(Zip)", "value((1, 1))"])
    }

    func testReleasesTheSubscriberAfterCancel() {
        let a = PassthroughSubject<Int, Never>()
        let b = PassthroughSubject<Int, Never>()
        weak var weakRecorder: Recorder<(Int, Int), Never>?
        var subscription: Subscription?
        do {
            let recorder = Recorder<(Int, Int), Never>()
            weakRecorder = recorder
            a.zip(b).subscribe(recorder)
            subscription = recorder.subscription
        }
        a.send(1)
        subscription?.cancel()
        XCTAssertNil(weakRecorder)
    }

    func testReleasesTheSubscriberAfterCompletion() {
        let a = PassthroughSubject<Int, Never>()
        let b = PassthroughSubject<Int, Never>()
        weak var weakRecorder: Recorder<(Int, Int), Never>?
        do {
            let recorder = Recorder<(Int, Int), Never>()
            weakRecorder = recorder
            a.zip(b).subscribe(recorder)
        }
        a.send(1)
        b.send(1)
        a.send(completion: .finished)
        XCTAssertNil(weakRecorder)
    }
}

final class ZipConcurrencyTests: XCTestCase {
    func testTwoSubjectsSendingFromTheirOwnThreadsYieldExactlyTenThousandPairsInOrder() {
        let a = PassthroughSubject<Int, Never>()
        let b = PassthroughSubject<Int, Never>()
        let detector = OverlapDetector()
        let pairs = LockedBox([(Int, Int)]())
        let cancellable = a.zip(b).sink { pair in
            detector.around { pairs.withLock { $0.append(pair) } }
        }
        runConcurrently(threads: 2) { thread in
            let subject = thread == 0 ? a : b
            for i in 0..<10_000 { subject.send(i) }
        }
        let received = pairs.withLock { $0 }
        XCTAssertEqual(received.count, 10_000)
        XCTAssertTrue(received.enumerated().allSatisfy { $0.element == ($0.offset, $0.offset) }, "pairs out of order")
        XCTAssertEqual(detector.overlaps, 0)
        cancellable.cancel()
    }

    func testFourUpstreamsAndConcurrentRequestsNeverExceedDemand() {
        let subjects = (0..<4).map { _ in PassthroughSubject<Int, Never>() }
        let detector = OverlapDetector()
        let recorder = Recorder<(Int, Int, Int, Int), Never>(initialDemand: nil) { _, _ in
            detector.around {}
            return .none
        }
        subjects[0].zip(subjects[1], subjects[2], subjects[3]).subscribe(recorder)
        runConcurrently(threads: 5) { thread in
            for i in 0..<2_000 {
                if thread == 4 {
                    if i < 500 { recorder.request(.max(1)) }
                } else {
                    subjects[thread].send(i)
                }
            }
        }
        let values = recorder.values
        XCTAssertLessThanOrEqual(values.count, 500, "never more than requested")
        // Each upstream's values keep their order inside the tuples (subjects drop what had no demand).
        for component in 0..<4 {
            let sequence = values.map { [$0.0, $0.1, $0.2, $0.3][component] }
            XCTAssertEqual(sequence, sequence.sorted())
        }
        XCTAssertEqual(detector.overlaps, 0)
    }

    /// Lock inversion: the subscriber takes a user lock that another thread holds while it sends into the other
    /// upstream. A zip that held its lock (or waited for the delivering thread) while thread 1 sends would deadlock;
    /// the zip instead hands thread 1's tuple to the thread already delivering.
    func testSubscriberTakingALockHeldByAnotherSenderDoesNotDeadlock() {
        let a = PassthroughSubject<Int, Never>()
        let b = PassthroughSubject<Int, Never>()
        let userLock = NSRecursiveLock()
        let received = LockedBox(0)
        let cancellable = a.zip(b).sink { _ in
            userLock.lock()
            received.withLock { $0 += 1 }
            userLock.unlock()
        }
        runConcurrently(threads: 2, timeout: 60) { thread in
            for i in 0..<2_000 {
                if thread == 0 {
                    a.send(i)
                } else {
                    userLock.lock()
                    b.send(i)
                    userLock.unlock()
                }
            }
        }
        XCTAssertEqual(received.withLock { $0 }, 2_000)
        cancellable.cancel()
    }

    func testFailureRacingValuesDeliversOneCompletionLast() {
        for _ in 0..<100 {
            let a = PassthroughSubject<Int, TestError>()
            let b = PassthroughSubject<Int, TestError>()
            let recorder = Recorder<(Int, Int), TestError>()
            a.zip(b).subscribe(recorder)
            runConcurrently(threads: 3) { thread in
                switch thread {
                case 0: for i in 0..<100 { a.send(i) }
                case 1: for i in 0..<100 { b.send(i) }
                default: b.send(completion: .failure(TestError()))
                }
            }
            let events = recorder.events
            XCTAssertEqual(recorder.completions.count, 1)
            if case .completion = events.last {} else { XCTFail("completion must be last: \(events)") }
        }
    }

    func testCancelRacingSendsEndsQuietly() {
        for _ in 0..<100 {
            let a = PassthroughSubject<Int, Never>()
            let b = PassthroughSubject<Int, Never>()
            let recorder = Recorder<(Int, Int), Never>()
            a.zip(b).subscribe(recorder)
            runConcurrently(threads: 3) { thread in
                switch thread {
                case 0: for i in 0..<200 { a.send(i) }
                case 1: for i in 0..<200 { b.send(i) }
                default: recorder.cancel()
                }
            }
            let countAfterCancel = recorder.values.count
            a.send(1_000)
            b.send(1_000)
            XCTAssertEqual(recorder.values.count, countAfterCancel, "nothing after cancel returned")
            XCTAssertEqual(recorder.completions.count, 0)
        }
    }
}

// Scenarios of bugs other Combine implementations shipped and later fixed.
extension ZipTests {
    // cx-org/CombineX 8515049: zip finished as soon as one upstream finished, dropping its values still waiting
    // for a partner.
    func testAFinishedUpstreamsWaitingValuesAreStillPaired() {
        let left = PassthroughSubject<String, TestError>()
        let right = PassthroughSubject<String, TestError>()
        let recorder = Recorder<String, TestError>()
        left.zip(right, +).subscribe(recorder)
        left.send("0")
        left.send("1")
        right.send("a")
        left.send(completion: .finished)
        right.send("b")
        right.send("c")
        XCTAssertEqual(recorder.events, [.subscription("Zip"), .value("0a"), .value("1b"), .completion(.finished)])
    }

    // cx-org/CombineX 9352fc6: demand of one returned from receive while both upstreams send synchronously lost
    // tuples.
    func testDemandOfOneReturnedFromReceiveKeepsEveryTuple() {
        let left = PassthroughSubject<Int, Never>()
        let right = PassthroughSubject<Int, Never>()
        let recorder = Recorder<Int, Never>(initialDemand: .max(1), onValue: { _, _ in .max(1) })
        left.zip(right) { $0 * 10 + $1 }.subscribe(recorder)
        for index in 0..<4 {
            left.send(index)
            right.send(index)
        }
        XCTAssertEqual(recorder.values, [0, 11, 22, 33])
    }
}
