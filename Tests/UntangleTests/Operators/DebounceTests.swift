import Dispatch
import Foundation
import Untangle
import UntangleSync
import UntangleTesting
import XCTest

final class DebounceTests: XCTestCase {
    /// The scenario of Apple's documentation: values at 0, 250, 1000, 1250, 1500 and 2000 ms, debounced by 500 ms.
    func testEmitsOnlyAfterTheQuietPeriod() {
        let scheduler = TestScheduler()
        let subject = PassthroughSubject<Int, Never>()
        let recorder = Recorder<Int, Never>(clock: scheduler)
        subject.debounce(for: .milliseconds(500), scheduler: scheduler).subscribe(recorder)
        let bounces = [(0, 0), (1, 250), (2, 1000), (3, 1250), (4, 1500), (5, 2000)]
        var clock = 0
        for (value, at) in bounces {
            scheduler.advance(by: .milliseconds(at - clock))
            clock = at
            subject.send(value)
        }
        scheduler.advance(by: .seconds(5))
        XCTAssertEqual(
            recorder.timedEvents,
            [
                Timed(0, .subscription("Debounce")), Timed(750, .value(1)), Timed(2000, .value(4)),
                Timed(2500, .value(5)),
            ])
    }

    func testCompletionIsDeliveredAtOnceAndDropsTheValueStillCountingDown() {
        let scheduler = TestScheduler()
        let subject = PassthroughSubject<Int, TestError>()
        let recorder = Recorder<Int, TestError>(clock: scheduler)
        subject.debounce(for: .seconds(1), scheduler: scheduler).subscribe(recorder)
        subject.send(1)
        scheduler.advance(by: .milliseconds(200))
        subject.send(completion: .failure(TestError(2)))
        scheduler.advance(by: .seconds(5))
        XCTAssertEqual(
            recorder.timedEvents,
            [Timed(0, .subscription("Debounce")), Timed(200, .completion(.failure(TestError(2))))])
    }

    func testAsksUpstreamForUnlimitedAndDropsADueValueWithoutDemand() {
        let scheduler = TestScheduler()
        let upstream = ManualPublisher<Int, Never>()
        let recorder = Recorder<Int, Never>(clock: scheduler, initialDemand: nil)
        upstream.debounce(for: .seconds(1), scheduler: scheduler).subscribe(recorder)
        XCTAssertEqual(upstream.history, [.request(.unlimited)])
        upstream.send(1)
        scheduler.advance(by: .seconds(1))
        recorder.request(.max(1))
        upstream.send(2)
        scheduler.advance(by: .seconds(1))
        upstream.send(3)
        scheduler.advance(by: .seconds(1))
        XCTAssertEqual(recorder.timedEvents, [Timed(0, .subscription("Debounce")), Timed(2000, .value(2))])
        XCTAssertEqual(upstream.history, [.request(.unlimited)])
    }

    func testDemandReturnedFromReceiveCounts() {
        let scheduler = TestScheduler()
        let subject = PassthroughSubject<Int, Never>()
        let recorder = Recorder<Int, Never>(initialDemand: .max(1)) { _, _ in .max(1) }
        subject.debounce(for: .seconds(1), scheduler: scheduler).subscribe(recorder)
        for value in 1...3 {
            subject.send(value)
            scheduler.advance(by: .seconds(1))
        }
        XCTAssertEqual(recorder.values, [1, 2, 3])
    }

    func testCancelDuringTheCountdownDeliversNothingAndCancelsUpstream() {
        let scheduler = TestScheduler()
        let upstream = ManualPublisher<Int, Never>()
        let recorder = Recorder<Int, Never>()
        upstream.debounce(for: .seconds(1), scheduler: scheduler).subscribe(recorder)
        upstream.send(1)
        recorder.cancel()
        recorder.cancel()
        scheduler.advance(by: .seconds(2))
        XCTAssertEqual(recorder.events, [.subscription("Debounce")])
        XCTAssertEqual(upstream.history, [.request(.unlimited), .cancel])
    }

    func testReleasesTheSubscriberAfterCancelAndAfterCompletion() {
        let scheduler = TestScheduler()
        let subject = PassthroughSubject<Int, Never>()
        weak var cancelled: Recorder<Int, Never>?
        weak var completed: Recorder<Int, Never>?
        var subscription: Subscription?
        do {
            let first = Recorder<Int, Never>()
            let second = Recorder<Int, Never>()
            cancelled = first
            completed = second
            subject.debounce(for: .seconds(1), scheduler: scheduler).subscribe(first)
            subject.debounce(for: .seconds(1), scheduler: scheduler).subscribe(second)
            subscription = first.subscription
        }
        subject.send(1)
        subscription?.cancel()
        XCTAssertNil(cancelled)
        subject.send(completion: .finished)
        scheduler.advance(by: .seconds(2))
        XCTAssertNil(completed)
    }

    /// As Apple's: the subscription describes itself as "Debounce" and mirrors the downstream, the unused demand
    /// and the latest value; a zero request is accepted.
    func testDescriptionMirrorAndZeroRequest() {
        let scheduler = TestScheduler()
        let upstream = ManualPublisher<Int, Never>()
        let recorder = Recorder<Int, Never>(initialDemand: nil)
        upstream.debounce(for: .seconds(1), scheduler: scheduler).subscribe(recorder)
        let subscription = recorder.subscription!
        subscription.request(.none)
        upstream.send(5)
        XCTAssertEqual(String(describing: subscription), "Debounce")
        let children = Mirror(reflecting: subscription).children.map { "\($0.label!): \($0.value)" }
        XCTAssertEqual(children.count, 3)
        XCTAssertEqual(children[1], "downstreamDemand: max(0)")
        XCTAssertEqual(children[2], "currentValue: Optional(5)")
    }
}

final class DebounceConcurrencyTests: XCTestCase {
    /// Values sent from several threads into a debounce on a concurrent queue: the subscriber sees one signal at a
    /// time, and the value sent last (after every sender returned) is delivered once everything is quiet.
    func testSendersOnSeveralThreadsAreSerializedAndTheLastValueWins() {
        assertSendersOnSeveralThreadsAreSerializedAndTheLastValueArrives {
            $0.debounce(for: .milliseconds(1), scheduler: DispatchQueue.global()).eraseToAnyPublisher()
        }
    }

    /// A burst of wide values (four words: larger than an existential's inline buffer), each replacing the one
    /// counting down: only the last is delivered, once. (The scheduler shell's per-value path: each value cancels the
    /// timer it replaces and releases the value it replaces, allocating nothing but the new timer.)
    func testABurstOfWideValuesDeliversOnlyTheLastOnce() {
        struct Wide: Equatable {
            var a, b, c, d: Int
        }
        let scheduler = TestScheduler()
        let subject = PassthroughSubject<Wide, Never>()
        let recorder = Recorder<Wide, Never>()
        subject.debounce(for: .seconds(1), scheduler: scheduler).subscribe(recorder)
        for value in 1...1_000 {
            subject.send(Wide(a: value, b: 0, c: 0, d: 0))
            scheduler.advance(by: .milliseconds(10))
        }
        scheduler.advance(by: .seconds(2))
        XCTAssertEqual(recorder.values, [Wide(a: 1_000, b: 0, c: 0, d: 0)])
        XCTAssertEqual(scheduler.scheduledActionCount, 0, "every replaced timer was cancelled")
    }
}

extension XCTestCase {
    /// Values sent from several threads into a scheduler operator (built by `operate` over a subject) delivering on a
    /// concurrent queue: the subscriber sees one signal at a time, and -1, sent after every sender returned, arrives.
    func assertSendersOnSeveralThreadsAreSerializedAndTheLastValueArrives(
        file: StaticString = #filePath, line: UInt = #line,
        _ operate: (PassthroughSubject<Int, Never>) -> AnyPublisher<Int, Never>
    ) {
        let subject = PassthroughSubject<Int, Never>()
        let detector = OverlapDetector()
        let last = expectation(description: "last value delivered")
        let cancellable = operate(subject).sink { value in
            detector.around {
                if value == -1 { last.fulfill() }
            }
        }
        runConcurrently(threads: 4) { thread in
            for value in 0..<2_000 { subject.send(thread * 10_000 + value) }
        }
        subject.send(-1)
        wait(for: [last], timeout: 60)
        XCTAssertEqual(detector.overlaps, 0, file: file, line: line)
        cancellable.cancel()
    }
}

// Scenarios of bugs other Combine implementations shipped and later fixed.
extension DebounceTests {
    // cx-org/CombineX f0501b7: once due, the last value was sent again at every later tick of the scheduler.
    func testADueValueIsSentOnceNotAgainAtLaterTicks() {
        let scheduler = TestScheduler()
        let subject = PassthroughSubject<Int, Never>()
        let recorder = Recorder<Int, Never>(clock: scheduler)
        subject.debounce(for: .seconds(1), scheduler: scheduler).subscribe(recorder)
        subject.send(1)
        for _ in 0..<10 { scheduler.advance(by: .seconds(1)) }
        subject.send(2)
        scheduler.advance(by: .seconds(10))
        XCTAssertEqual(
            recorder.timedEvents,
            [Timed(0, .subscription("Debounce")), Timed(1000, .value(1)), Timed(11_000, .value(2))])
    }
}
