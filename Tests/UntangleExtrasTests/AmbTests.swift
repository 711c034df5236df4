import Foundation
import Untangle
import UntangleExtras
import UntangleTesting
import XCTest

final class AmbTests: XCTestCase {
    func testFirstToSendWinsAndTheOthersAreCancelled() {
        let a = ManualPublisher<Int, TestError>(recordsSubscriptions: true)
        let b = ManualPublisher<Int, TestError>(recordsSubscriptions: true)
        let c = ManualPublisher<Int, TestError>(recordsSubscriptions: true)
        let recorder = Recorder<Int, TestError>(initialDemand: .max(2))
        a.amb(b, c).subscribe(recorder)
        XCTAssertEqual(a.history, [.subscribed, .request(.max(2))])
        b.send(10)
        a.send(1)  // lost the race: dropped
        b.send(11)
        recorder.request(.max(1))
        b.finish()
        XCTAssertEqual(recorder.events, [.subscription("Amb"), .value(10), .value(11), .completion(.finished)])
        XCTAssertEqual(a.history, [.subscribed, .request(.max(2)), .cancel])
        XCTAssertEqual(c.history, [.subscribed, .request(.max(2)), .cancel])
        XCTAssertEqual(b.history, [.subscribed, .request(.max(2)), .request(.max(1))], "later demand: winner only")
    }

    // Regression for the winner's lock-free path (values of the winner skip the race's lock once it has won): a
    // value the winner sends after the downstream cancelled, or after a second source's late value, must still not
    // arrive, and a loser's value after the win must still be dropped.
    func testTheWinnersLaterValuesSkipTheRaceButNothingArrivesAfterCancel() {
        let a = ManualPublisher<Int, TestError>(recordsSubscriptions: true)
        let b = ManualPublisher<Int, TestError>(recordsSubscriptions: true)
        let recorder = Recorder<Int, TestError>()
        a.amb(b).subscribe(recorder)
        b.send(1)
        b.send(2)
        a.send(99)
        b.send(3)
        recorder.cancel()
        b.send(4)
        b.finish()
        XCTAssertEqual(recorder.events, [.subscription("Amb"), .value(1), .value(2), .value(3)])
        XCTAssertEqual(a.history, [.subscribed, .request(.unlimited), .cancel])
        XCTAssertEqual(b.history, [.subscribed, .request(.unlimited), .cancel])
    }

    func testACompletionAlsoWins() {
        let a = ManualPublisher<Int, TestError>(recordsSubscriptions: true)
        let b = ManualPublisher<Int, TestError>(recordsSubscriptions: true)
        let recorder = Recorder<Int, TestError>()
        a.amb(b).subscribe(recorder)
        b.send(completion: .failure(TestError(1)))
        a.send(1)
        XCTAssertEqual(recorder.events, [.subscription("Amb"), .completion(.failure(TestError(1)))])
        XCTAssertEqual(a.history, [.subscribed, .request(.unlimited), .cancel])
        XCTAssertEqual(b.history, [.subscribed, .request(.unlimited)])
    }

    func testASynchronousSourceWinsOrEndsTheRaceBeforeLaterOnesAreSubscribed() {
        let later = ManualPublisher<Int, Never>(recordsSubscriptions: true)
        let recorder = Recorder<Int, Never>()
        Just(1).amb(later).subscribe(recorder)
        XCTAssertEqual(recorder.events, [.subscription("Amb"), .value(1), .completion(.finished)])
        XCTAssertEqual(later.subscriptions, 0)
        let finished = Recorder<Int, Never>()
        Empty<Int, Never>().amb(later).subscribe(finished)
        XCTAssertEqual(finished.events, [.subscription("Amb"), .completion(.finished)], "a completion ends the race")
        XCTAssertEqual(later.subscriptions, 0)
        let empty = Recorder<Int, Never>(initialDemand: nil)
        Publishers.Amb<Int, Never>([]).subscribe(empty)
        XCTAssertEqual(empty.events, [.subscription("Amb"), .completion(.finished)])
    }

    // ReactiveX/RxSwift c81a5ed8: amb kept its sources' subscriptions after the winner ended, until someone disposed
    // of the result. Once the winner finishes, the race keeps no source alive (the loser was cancelled at the win),
    // though the subscriber still holds its subscription.
    func testTheWinnersCompletionReleasesEverySourceWithoutACancel() {
        weak var weakWinner: ManualPublisher<Int, TestError>?
        weak var weakLoser: ManualPublisher<Int, TestError>?
        let recorder = Recorder<Int, TestError>()
        do {
            let loser = ManualPublisher<Int, TestError>(recordsSubscriptions: true)
            let winner = ManualPublisher<Int, TestError>(recordsSubscriptions: true)
            weakLoser = loser
            weakWinner = winner
            loser.amb(winner).subscribe(recorder)
            winner.send(1)
            winner.finish()
            XCTAssertEqual(loser.history.last, .cancel)
        }
        XCTAssertEqual(recorder.events, [.subscription("Amb"), .value(1), .completion(.finished)])
        XCTAssertNotNil(recorder.subscription, "the subscriber keeps its subscription")
        XCTAssertNil(weakWinner)
        XCTAssertNil(weakLoser)
    }

    func testZeroDemandThenRequestAndCancelReleases() {
        let a = ManualPublisher<Int, TestError>(recordsSubscriptions: true)
        let b = ManualPublisher<Int, TestError>(recordsSubscriptions: true)
        weak var weakRecorder: Recorder<Int, TestError>?
        do {
            let recorder = Recorder<Int, TestError>(initialDemand: nil)
            weakRecorder = recorder
            a.amb(b).subscribe(recorder)
            XCTAssertEqual(a.history, [.subscribed])
            recorder.request(.max(1))
            a.send(1)
            XCTAssertEqual(recorder.values, [1])
            recorder.cancel()
            recorder.cancel()
        }
        XCTAssertEqual(a.history, [.subscribed, .request(.max(1)), .cancel])
        XCTAssertEqual(b.history, [.subscribed, .request(.max(1)), .cancel])
        XCTAssertNil(weakRecorder)
    }
}

final class AmbConcurrencyTests: XCTestCase {
    func testRacingSourcesProduceExactlyOneWinnersValues() {
        for _ in 0..<100 {
            let a = PassthroughSubject<Int, Never>()
            let b = PassthroughSubject<Int, Never>()
            let detector = OverlapDetector()
            let recorder = Recorder<Int, Never>(onValue: { _, _ in detector.around { .none } })
            a.amb(b).subscribe(recorder)
            runConcurrently(threads: 2) { thread in
                let subject = thread == 0 ? a : b
                for i in 0..<50 { subject.send(thread * 1_000 + i) }
                subject.send(completion: .finished)
            }
            let values = recorder.values
            XCTAssertEqual(values.count, 50)
            let winner = (values.first ?? 0) / 1_000
            XCTAssertEqual(values, (0..<50).map { winner * 1_000 + $0 }, "all from one source, in order")
            XCTAssertEqual(recorder.events.last, .completion(.finished))
            XCTAssertEqual(detector.overlaps, 0)
        }
    }

    func testLockInversionWithUserLockHeldWhileSending() {
        let a = PassthroughSubject<Int, Never>()
        let b = PassthroughSubject<Int, Never>()
        let userLock = NSRecursiveLock()
        let count = Counter()
        let cancellable = a.amb(b).sink { _ in
            userLock.lock()
            count.add(1)
            userLock.unlock()
        }
        runConcurrently(threads: 2, timeout: 60) { thread in
            for i in 0..<1_000 {
                userLock.lock()
                (thread == 0 ? a : b).send(i)
                userLock.unlock()
            }
        }
        XCTAssertEqual(count.value, 1_000)
        withExtendedLifetime(cancellable) {}
    }
}
