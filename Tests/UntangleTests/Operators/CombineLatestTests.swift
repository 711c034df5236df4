import Foundation
import Untangle
import UntangleSync
import UntangleTesting
import XCTest

/// Tuples are not Equatable: histories are compared through their descriptions.
private func history<Value, Failure>(_ recorder: Recorder<Value, Failure>) -> [String] {
    recorder.events.map(\.description)
}

/// A value whose release the tests watch.
private final class Payload {}

final class CombineLatestTests: XCTestCase {
    func testPublishesTheLatestValuesOnceEveryUpstreamHasOne() {
        let a = PassthroughSubject<Int, TestError>()
        let b = PassthroughSubject<String, TestError>()
        let recorder = Recorder<(Int, String), TestError>()
        a.combineLatest(b).subscribe(recorder)
        a.send(1)
        a.send(2)
        XCTAssertEqual(history(recorder), ["subscription(CombineLatest)"])
        b.send("x")
        b.send("y")
        a.send(3)
        XCTAssertEqual(
            history(recorder),
            [
                "subscription(CombineLatest)", "value((2, \"x\"))", "value((2, \"y\"))", "value((3, \"y\"))",
            ])
    }

    func testFinishesOnlyWhenEveryUpstreamFinishedKeepingTheFinishedOnesLatestValue() {
        let a = ManualPublisher<Int, Never>()
        let b = ManualPublisher<Int, Never>()
        let recorder = Recorder<(Int, Int), Never>()
        a.combineLatest(b).subscribe(recorder)
        a.send(1)
        a.send(completion: .finished)
        b.send(10)
        b.send(20)
        XCTAssertEqual(history(recorder), ["subscription(CombineLatest)", "value((1, 10))", "value((1, 20))"])
        b.send(completion: .finished)
        XCTAssertEqual(
            history(recorder), ["subscription(CombineLatest)", "value((1, 10))", "value((1, 20))", "finished"])
        XCTAssertEqual(a.history, [.request(.unlimited)])
        XCTAssertEqual(b.history, [.request(.unlimited)])
    }

    func testAnUpstreamFinishingWithoutAValueStillWaitsForTheOthersToFinish() {
        // Apple: "All upstream publishers need to finish for this publisher to finish."
        let a = ManualPublisher<Int, Never>()
        let b = ManualPublisher<Int, Never>()
        let recorder = Recorder<(Int, Int), Never>()
        a.combineLatest(b).subscribe(recorder)
        a.send(completion: .finished)
        b.send(1)
        XCTAssertEqual(history(recorder), ["subscription(CombineLatest)"])
        XCTAssertEqual(b.history, [.request(.unlimited)], "not cancelled")
        b.send(completion: .finished)
        XCTAssertEqual(history(recorder), ["subscription(CombineLatest)", "finished"])
    }

    func testCompletionNeedsNoDemand() {
        let a = ManualPublisher<Int, Never>()
        let b = ManualPublisher<Int, Never>()
        let recorder = Recorder<(Int, Int), Never>(initialDemand: nil)
        a.combineLatest(b).subscribe(recorder)
        a.send(completion: .finished)
        b.send(completion: .finished)
        XCTAssertEqual(history(recorder), ["subscription(CombineLatest)", "finished"])
    }

    func testFailureCancelsTheOthersAndNothingFollows() {
        let a = ManualPublisher<Int, TestError>()
        let b = ManualPublisher<Int, TestError>()
        let c = ManualPublisher<Int, TestError>()
        let recorder = Recorder<(Int, Int, Int), TestError>(initialDemand: .max(3))
        a.combineLatest(b, c).subscribe(recorder)
        a.send(1)
        b.send(2)
        c.send(3)
        b.send(completion: .failure(TestError(7)))
        a.send(4)
        a.send(completion: .failure(TestError(8)))
        XCTAssertEqual(
            history(recorder), ["subscription(CombineLatest)", "value((1, 2, 3))", "failure(TestError(7))"])
        XCTAssertEqual(a.history, [.request(.max(3)), .cancel])
        XCTAssertEqual(b.history, [.request(.max(3))])
        XCTAssertEqual(c.history, [.request(.max(3)), .cancel])
    }

    func testInitialDemandZeroThenLaterRequestIsForwardedToEveryUpstream() {
        let a = ManualPublisher<Int, Never>()
        let b = ManualPublisher<Int, Never>()
        let recorder = Recorder<(Int, Int), Never>(initialDemand: nil)
        a.combineLatest(b).subscribe(recorder)
        XCTAssertEqual(a.history, [])
        recorder.request(.max(2))
        XCTAssertEqual(a.history, [.request(.max(2))])
        XCTAssertEqual(b.history, [.request(.max(2))])
    }

    func testTuplesBeyondDemandWaitInOrderAndNoneIsLost() {
        let a = ManualPublisher<Int, Never>()
        let b = ManualPublisher<Int, Never>()
        let recorder = Recorder<(Int, Int), Never>(initialDemand: .max(1))
        a.combineLatest(b).subscribe(recorder)
        a.send(1)
        b.send(1)  // (1, 1): delivered
        XCTAssertEqual(history(recorder), ["subscription(CombineLatest)", "value((1, 1))"])
        recorder.request(.max(1))
        a.send(2)  // (2, 1): delivered
        b.send(2)  // (2, 2): the upstream was allowed to send it; it waits for demand
        b.send(completion: .finished)
        a.send(completion: .finished)
        XCTAssertEqual(history(recorder), ["subscription(CombineLatest)", "value((1, 1))", "value((2, 1))"])
        recorder.request(.max(1))
        XCTAssertEqual(
            history(recorder),
            ["subscription(CombineLatest)", "value((1, 1))", "value((2, 1))", "value((2, 2))", "finished"])
    }

    func testMaxOneAndDemandReturnedFromReceiveIsForwardedUpstream() {
        let a = ManualPublisher<Int, Never>()
        let b = ManualPublisher<Int, Never>()
        let recorder = Recorder<(Int, Int), Never>(initialDemand: .max(1)) { _, _ in .max(1) }
        a.combineLatest(b).subscribe(recorder)
        a.send(1)
        b.send(1)
        XCTAssertEqual(a.history, [.request(.max(1)), .request(.max(1))])
        XCTAssertEqual(b.history, [.request(.max(1)), .request(.max(1))])
    }

    func testSynchronousUpstreamsWithReentrantRequests() {
        let recorder = Recorder<(Int, String), Never>(initialDemand: .max(1)) { recorder, _ in
            recorder.request(.max(1))
            return .none
        }
        [1, 2].publisher.combineLatest(["a", "b"].publisher).subscribe(recorder)
        // Each request made from receive reaches both upstreams: the first one sends its next value before the
        // second does.
        XCTAssertEqual(
            history(recorder),
            [
                "subscription(CombineLatest)", "value((1, \"a\"))", "value((2, \"a\"))", "value((2, \"b\"))",
                "finished",
            ])
    }

    func testEveryArityWithAndWithoutTransform() {
        let j = (1...4).map { Just($0) }
        func values<P: Publisher>(_ publisher: P) -> [String] where P.Failure == Never {
            let recorder = Recorder<P.Output, Never>()
            publisher.subscribe(recorder)
            XCTAssertEqual(recorder.completions, [.finished])
            return recorder.values.map { "\($0)" }
        }
        XCTAssertEqual(values(j[0].combineLatest(j[1])), ["(1, 2)"])
        XCTAssertEqual(values(j[0].combineLatest(j[1], j[2])), ["(1, 2, 3)"])
        XCTAssertEqual(values(j[0].combineLatest(j[1], j[2], j[3])), ["(1, 2, 3, 4)"])
        XCTAssertEqual(values(j[0].combineLatest(j[1]) { $0 * 10 + $1 }), ["12"])
        XCTAssertEqual(values(j[0].combineLatest(j[1], j[2]) { $0 * 100 + $1 * 10 + $2 }), ["123"])
        XCTAssertEqual(
            values(j[0].combineLatest(j[1], j[2], j[3]) { $0 * 1000 + $1 * 100 + $2 * 10 + $3 }), ["1234"])
        XCTAssertEqual(values(Publishers.CombineLatest(j[0], Just("b"))), ["(1, \"b\")"])
        XCTAssertEqual(values(Publishers.CombineLatest3(j[0], j[1], Just("c"))), ["(1, 2, \"c\")"])
        XCTAssertEqual(values(Publishers.CombineLatest4(j[0], j[1], j[2], Just("d"))), ["(1, 2, 3, \"d\")"])
        let typed: Publishers.Map<Publishers.CombineLatest<Just<Int>, Just<Int>>, Int> = j[0].combineLatest(j[1]) {
            $0 + $1
        }
        XCTAssertEqual(values(typed), ["3"])
    }

    func testEquatableWhenUpstreamsAre() {
        XCTAssertEqual(Just(1).combineLatest(Just(2)), Just(1).combineLatest(Just(2)))
        XCTAssertNotEqual(Just(1).combineLatest(Just(2)), Just(1).combineLatest(Just(3)))
        XCTAssertEqual(Just(1).combineLatest(Just(2), Just(3)), Just(1).combineLatest(Just(2), Just(3)))
        XCTAssertNotEqual(
            Just(1).combineLatest(Just(2), Just(3), Just(4)), Just(1).combineLatest(Just(2), Just(3), Just(5)))
    }

    func testCancelCancelsEveryUpstreamOnceAndStopsDelivery() {
        let a = ManualPublisher<Int, Never>()
        let b = ManualPublisher<Int, Never>()
        let recorder = Recorder<(Int, Int), Never>()
        a.combineLatest(b).subscribe(recorder)
        a.send(1)
        b.send(1)
        recorder.cancel()
        recorder.cancel()
        b.send(2)
        XCTAssertEqual(history(recorder), ["subscription(CombineLatest)", "value((1, 1))"])
        XCTAssertEqual(a.history, [.request(.unlimited), .cancel])
        XCTAssertEqual(b.history, [.request(.unlimited), .cancel])
    }

    func testCancelDuringEmissionStopsFurtherTuples() {
        let a = PassthroughSubject<Int, Never>()
        let recorder = Recorder<(Int, Int), Never> { recorder, _ in
            recorder.cancel()
            return .none
        }
        a.combineLatest(Just(0)).subscribe(recorder)
        a.send(1)
        a.send(2)
        XCTAssertEqual(history(recorder), ["subscription(CombineLatest)", "value((1, 0))"])
    }

    func testReleasesTheSubscriberAfterCancel() {
        let a = PassthroughSubject<Int, Never>()
        weak var weakRecorder: Recorder<(Int, Int), Never>?
        var subscription: Subscription?
        do {
            let recorder = Recorder<(Int, Int), Never>()
            weakRecorder = recorder
            a.combineLatest(PassthroughSubject<Int, Never>()).subscribe(recorder)
            subscription = recorder.subscription
        }
        a.send(1)
        subscription?.cancel()
        XCTAssertNil(weakRecorder)
    }

    func testReleasesTheSubscriberAfterCompletion() {
        let a = PassthroughSubject<Int, Never>()
        weak var weakRecorder: Recorder<(Int, Int), Never>?
        do {
            let recorder = Recorder<(Int, Int), Never>()
            weakRecorder = recorder
            a.combineLatest(Just(1)).subscribe(recorder)
        }
        a.send(1)
        a.send(completion: .finished)
        XCTAssertNil(weakRecorder)
    }

    func testReplacedLatestValuesAreReleased() {
        final class Token {}
        let a = PassthroughSubject<Token, Never>()
        let b = PassthroughSubject<Int, Never>()
        weak var weakToken: Token?
        let cancellable = a.combineLatest(b).sink { _ in }
        do {
            let token = Token()
            weakToken = token
            a.send(token)
        }
        XCTAssertNotNil(weakToken, "kept as the latest value")
        a.send(Token())
        XCTAssertNil(weakToken, "released once replaced")
        cancellable.cancel()
    }

    func testCancelReleasesTheLatestValues() {
        let a = PassthroughSubject<Payload, Never>()
        let b = PassthroughSubject<Int, Never>()
        weak var weakPayload: Payload?
        let cancellable = a.combineLatest(b).sink { _ in }
        do {
            let token = Payload()
            weakPayload = token
            a.send(token)
        }
        XCTAssertNotNil(weakPayload, "kept as the latest value")
        cancellable.cancel()
        XCTAssertNil(weakPayload, "released by the cancel, though the subjects live on")
    }

    func testFinishingReleasesTheLatestValues() {
        let a = PassthroughSubject<Payload, Never>()
        let b = PassthroughSubject<Int, Never>()
        weak var weakPayload: Payload?
        let recorder = Recorder<(Payload, Int), Never>()
        a.combineLatest(b).subscribe(recorder)
        do {
            let token = Payload()
            weakPayload = token
            a.send(token)
        }
        a.send(completion: .finished)
        XCTAssertNotNil(weakPayload, "a finished upstream's latest value is still combined")
        b.send(completion: .finished)
        XCTAssertEqual(history(recorder), ["subscription(CombineLatest)", "finished"])
        XCTAssertNil(weakPayload, "released once every upstream finished")
    }

    func testAValueSentFromInsideReceiveFormsTheNextTupleAfterTheCurrentOne() {
        let a = PassthroughSubject<Int, Never>()
        let b = PassthroughSubject<Int, Never>()
        let recorder = Recorder<(Int, Int), Never> { _, tuple in
            if tuple.0 == 1 {
                // Formed while this thread forwards (1, 10): queued, delivered when that delivery returns.
                a.send(2)
                b.send(20)
            }
            return .none
        }
        a.combineLatest(b).subscribe(recorder)
        a.send(1)
        b.send(10)
        XCTAssertEqual(
            history(recorder),
            ["subscription(CombineLatest)", "value((1, 10))", "value((2, 10))", "value((2, 20))"])
    }

    // Regression: the forwarder gives its role up with a compare-exchange when nobody signalled it; every upstream
    // finishing from inside its delivery must signal it, or the finish is never delivered.
    func testEveryUpstreamFinishingFromInsideADeliveryStillFinishesAfterIt() {
        let a = PassthroughSubject<Int, Never>()
        let b = PassthroughSubject<Int, Never>()
        let recorder = Recorder<(Int, Int), Never> { _, tuple in
            if tuple.1 == 10 {
                a.send(completion: .finished)
                b.send(completion: .finished)
            }
            return .none
        }
        a.combineLatest(b).subscribe(recorder)
        a.send(1)
        b.send(10)
        XCTAssertEqual(history(recorder), ["subscription(CombineLatest)", "value((1, 10))", "finished"])
    }

    // The forwarder that gave its role up (nothing was signalled) leaves it free: the next value's thread takes it.
    func testTheForwarderRoleIsTakenAgainAfterEachTuple() {
        let a = PassthroughSubject<Int, Never>()
        let b = PassthroughSubject<Int, Never>()
        let recorder = Recorder<(Int, Int), Never>()
        a.combineLatest(b).subscribe(recorder)
        a.send(1)
        for value in 1...3 {
            b.send(value)
        }
        a.send(completion: .finished)
        b.send(completion: .finished)
        XCTAssertEqual(
            history(recorder),
            ["subscription(CombineLatest)", "value((1, 1))", "value((1, 2))", "value((1, 3))", "finished"])
    }

    func testCancelFromInsideReceiveReleasesTheTuplesFormedMeanwhile() {
        let a = PassthroughSubject<Payload, Never>()
        let b = PassthroughSubject<Int, Never>()
        weak var weakPayload: Payload?
        let recorder = Recorder<(Payload, Int), Never> { recorder, tuple in
            if tuple.1 == 1 {
                do {
                    let token = Payload()
                    weakPayload = token
                    a.send(token)
                }
                XCTAssertNotNil(weakPayload, "in the tuple queued behind this delivery")
                recorder.cancel()
            }
            return .none
        }
        a.combineLatest(b).subscribe(recorder)
        a.send(Payload())
        b.send(1)
        XCTAssertNil(weakPayload, "the queued tuple and the latest value released by the cancel")
        XCTAssertEqual(history(recorder).count, 2, "nothing delivered after the cancel")
    }
}

final class CombineLatestConcurrencyTests: XCTestCase {
    func testTwoSubjectsSendingFromTheirOwnThreadsLoseNoTupleAndKeepOrder() {
        let a = PassthroughSubject<Int, Never>()
        let b = PassthroughSubject<Int, Never>()
        let detector = OverlapDetector()
        let tuples = LockedBox([(Int, Int)]())
        let cancellable = a.combineLatest(b).sink { tuple in
            detector.around { tuples.withLock { $0.append(tuple) } }
        }
        a.send(-1)
        b.send(-1)
        runConcurrently(threads: 2) { thread in
            let subject = thread == 0 ? a : b
            for i in 0..<10_000 { subject.send(i) }
        }
        let received = tuples.withLock { $0 }
        XCTAssertEqual(received.count, 20_001, "one tuple per value once both have one")
        XCTAssertEqual(received.map(\.0), received.map(\.0).sorted(), "a's latest never goes back")
        XCTAssertEqual(received.map(\.1), received.map(\.1).sorted(), "b's latest never goes back")
        XCTAssertEqual(Set(received.map(\.0)), Set(-1..<10_000))
        XCTAssertEqual(Set(received.map(\.1)), Set(-1..<10_000))
        XCTAssertTrue(received.last! == (9_999, 9_999))
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
        subjects[0].combineLatest(subjects[1], subjects[2], subjects[3]).subscribe(recorder)
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
        for component in 0..<4 {
            let sequence = values.map { [$0.0, $0.1, $0.2, $0.3][component] }
            XCTAssertEqual(sequence, sequence.sorted())
        }
        XCTAssertEqual(detector.overlaps, 0)
    }

    /// Lock inversion: see ZipConcurrencyTests; every value after both have one yields a tuple.
    func testSubscriberTakingALockHeldByAnotherSenderDoesNotDeadlock() {
        let a = PassthroughSubject<Int, Never>()
        let b = PassthroughSubject<Int, Never>()
        let userLock = NSRecursiveLock()
        let received = LockedBox(0)
        let cancellable = a.combineLatest(b).sink { _ in
            userLock.lock()
            received.withLock { $0 += 1 }
            userLock.unlock()
        }
        a.send(-1)
        b.send(-1)
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
        XCTAssertEqual(received.withLock { $0 }, 4_001)
        cancellable.cancel()
    }

    func testFailureRacingValuesDeliversOneCompletionLast() {
        for _ in 0..<100 {
            let a = PassthroughSubject<Int, TestError>()
            let b = PassthroughSubject<Int, TestError>()
            let recorder = Recorder<(Int, Int), TestError>()
            a.combineLatest(b).subscribe(recorder)
            runConcurrently(threads: 3) { thread in
                switch thread {
                case 0: for i in 0..<100 { a.send(i) }
                case 1: for i in 0..<100 { b.send(i) }
                default: a.send(completion: .failure(TestError()))
                }
            }
            let events = recorder.events
            XCTAssertEqual(recorder.completions.count, 1)
            if case .completion = events.last {} else { XCTFail("completion must be last: \(events)") }
        }
    }

    func testConcurrentFinishesDeliverAllTuplesThenOneFinished() {
        for _ in 0..<100 {
            let a = PassthroughSubject<Int, Never>()
            let b = PassthroughSubject<Int, Never>()
            let recorder = Recorder<(Int, Int), Never>()
            a.combineLatest(b).subscribe(recorder)
            a.send(0)
            b.send(0)
            runConcurrently(threads: 2) { thread in
                let subject = thread == 0 ? a : b
                for i in 1...50 { subject.send(i) }
                subject.send(completion: .finished)
            }
            XCTAssertEqual(recorder.values.count, 101)
            XCTAssertEqual(recorder.completions, [.finished])
            if case .completion = recorder.events.last {} else { XCTFail("finished must be last") }
        }
    }
}
