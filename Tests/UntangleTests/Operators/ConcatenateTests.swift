import Foundation
import Untangle
import UntangleSync
import UntangleTesting
import XCTest

final class ConcatenateTests: XCTestCase {
    func testAppendAndPrependValuesSequencesAndPublishers() {
        func values<P: Publisher>(_ publisher: P) -> [Int] where P.Output == Int, P.Failure == Never {
            let recorder = Recorder<Int, Never>()
            publisher.subscribe(recorder)
            XCTAssertEqual(recorder.completions, [.finished])
            return recorder.values
        }
        XCTAssertEqual(values([1, 2].publisher.append(3, 4)), [1, 2, 3, 4])
        XCTAssertEqual(values([1, 2].publisher.append(3...5)), [1, 2, 3, 4, 5])
        XCTAssertEqual(values([1, 2].publisher.append(Just(3))), [1, 2, 3])
        XCTAssertEqual(values([3, 4].publisher.prepend(1, 2)), [1, 2, 3, 4])
        XCTAssertEqual(values([3, 4].publisher.prepend(1...2)), [1, 2, 3, 4])
        XCTAssertEqual(values([3, 4].publisher.prepend(Just(2)).prepend(1)), [1, 2, 3, 4])
        XCTAssertEqual(values(Empty<Int, Never>().append(1).prepend(0)), [0, 1])
        let typed: Publishers.Concatenate<Just<Int>, Publishers.Sequence<[Int], Never>> = Just(1).append(2, 3)
        XCTAssertEqual(values(typed), [1, 2, 3])
        let prepended: Publishers.Concatenate<Publishers.Sequence<ClosedRange<Int>, Never>, Just<Int>> =
            Just(3).prepend(1...2)
        XCTAssertEqual(values(prepended), [1, 2, 3])
    }

    func testSuffixIsSubscribedOnlyAfterThePrefixFinishes() {
        let prefix = ManualPublisher<Int, Never>()
        let suffix = ManualPublisher<Int, Never>()
        let recorder = Recorder<Int, Never>(initialDemand: .max(5))
        prefix.append(suffix).subscribe(recorder)
        XCTAssertEqual(prefix.history, [.request(.max(5))])
        XCTAssertEqual(suffix.history, [], "not subscribed yet")
        prefix.send(1)
        prefix.send(2)
        suffix.send(99)  // not subscribed: goes nowhere
        prefix.send(completion: .finished)
        XCTAssertEqual(suffix.history, [.request(.max(3))], "the demand the prefix did not use")
        suffix.send(3)
        suffix.send(completion: .finished)
        XCTAssertEqual(
            recorder.events,
            [.subscription("Concatenate"), .value(1), .value(2), .value(3), .completion(.finished)])
    }

    func testDemandIsCarriedOverExactlyIncludingReturnedDemandAndRequestsBetweenTheStages() {
        let prefix = ManualPublisher<Int, Never>()
        let suffix = PassthroughSubject<Int, Never>()
        let recorder = Recorder<Int, Never>(initialDemand: .max(2)) { _, value in value == 1 ? .max(3) : .none }
        prefix.append(suffix).subscribe(recorder)
        prefix.send(1)  // outstanding 2 - 1 + 3 = 4
        prefix.send(2)  // 3
        XCTAssertEqual(prefix.history, [.request(.max(2))])
        prefix.send(completion: .finished)
        recorder.request(.max(1))  // 4
        for i in 3...10 { suffix.send(i) }
        XCTAssertEqual(recorder.values, [1, 2, 3, 4, 5, 6], "exactly the outstanding demand")
    }

    // Regression: `request(.none)` stopped the program; Combine forwards it to the publisher subscribed.
    func testRequestNoneIsForwardedToTheCurrentUpstream() {
        let prefix = ManualPublisher<Int, Never>()
        let recorder = Recorder<Int, Never>(initialDemand: .max(1))
        prefix.append(Empty()).subscribe(recorder)
        recorder.subscription?.request(.none)
        XCTAssertEqual(prefix.history, [.request(.max(1)), .request(.none)])
    }

    // A misbehaving prefix that sends beyond the demand: as in Combine, the extra value is dropped.
    func testAPrefixValueWithoutDemandIsDropped() {
        let prefix = ManualPublisher<Int, Never>()
        let recorder = Recorder<Int, Never>(initialDemand: .max(1))
        prefix.append(Empty()).subscribe(recorder)
        XCTAssertEqual(prefix.send(1), .none)
        XCTAssertEqual(prefix.send(2), .none)
        XCTAssertEqual(recorder.events, [.subscription("Concatenate"), .value(1)])
    }

    func testPrefixAndSuffixSubscribersShareTheSubscriptionsIdentity() throws {
        let prefix = ManualPublisher<Int, Never>()
        let suffix = CapturingPublisher<Int, Never>()
        let recorder = Recorder<Int, Never>(initialDemand: nil)
        prefix.append(suffix).subscribe(recorder)
        prefix.send(completion: .finished)
        let subscription = try XCTUnwrap(recorder.subscription)
        let suffixSubscriber = try XCTUnwrap(suffix.subscriber as? any Subscriber)
        XCTAssertEqual(suffixSubscriber.combineIdentifier, subscription.combineIdentifier)
        XCTAssertEqual(String(describing: suffixSubscriber), "Concatenate")
        XCTAssertEqual(Mirror(reflecting: suffixSubscriber).children.count, 0)
        XCTAssertEqual(Mirror(reflecting: subscription).children.count, 0)
    }

    // OpenCombine/OpenCombine 3d3adb5: the inner subscription kept the suffix publisher after cancel.
    func testCancelReleasesTheSuffixPublisher() {
        weak var weakSuffix: CapturingPublisher<Int, Never>?
        let recorder = Recorder<Int, Never>(initialDemand: nil)
        do {
            let suffix = CapturingPublisher<Int, Never>()
            weakSuffix = suffix
            ManualPublisher<Int, Never>().append(suffix).subscribe(recorder)
        }
        XCTAssertNotNil(weakSuffix, "kept until it is needed")
        recorder.cancel()
        XCTAssertNil(weakSuffix)
    }

    func testInitialDemandZeroThenLaterRequest() {
        let recorder = Recorder<Int, Never>(initialDemand: nil)
        [1].publisher.append(2, 3).subscribe(recorder)
        XCTAssertEqual(recorder.values, [])
        recorder.request(.max(2))
        XCTAssertEqual(recorder.values, [1, 2])
        XCTAssertEqual(recorder.completions, [])
        recorder.request(.max(1))
        XCTAssertEqual(recorder.values, [1, 2, 3])
        XCTAssertEqual(recorder.completions, [.finished])
    }

    func testMaxOneWithDemandReturnedFromReceive() {
        let recorder = Recorder<Int, Never>(initialDemand: .max(1)) { _, _ in .max(1) }
        (0..<1_000).publisher.append(1_000..<2_000).subscribe(recorder)
        XCTAssertEqual(recorder.values, Array(0..<2_000))
        XCTAssertEqual(recorder.completions, [.finished])
    }

    func testReentrantRequestFromReceive() {
        let recorder = Recorder<Int, Never>(initialDemand: .max(1)) { recorder, _ in
            recorder.request(.max(1))
            return .none
        }
        [1, 2].publisher.append(3, 4).subscribe(recorder)
        XCTAssertEqual(recorder.values, [1, 2, 3, 4])
        XCTAssertEqual(recorder.completions, [.finished])
    }

    func testCompletionWithZeroDemand() {
        let recorder = Recorder<Int, Never>(initialDemand: nil)
        Empty<Int, Never>().append(Empty()).subscribe(recorder)
        XCTAssertEqual(recorder.completions, [.finished])
    }

    func testPrefixFailureIsPublishedAndTheSuffixNeverSubscribed() {
        let suffix = ManualPublisher<Int, TestError>()
        let recorder = Recorder<Int, TestError>()
        Fail<Int, TestError>(error: TestError(3)).append(suffix).subscribe(recorder)
        XCTAssertEqual(recorder.completions, [.failure(TestError(3))])
        XCTAssertEqual(suffix.history, [])
    }

    func testSuffixFailureIsPublished() {
        let recorder = Recorder<Int, TestError>()
        Publishers.Sequence<[Int], TestError>(sequence: [1]).append(Fail(error: TestError(4))).subscribe(recorder)
        XCTAssertEqual(recorder.values, [1])
        XCTAssertEqual(recorder.completions, [.failure(TestError(4))])
    }

    func testCancelDuringThePrefixCancelsItAndTheSuffixIsNeverSubscribed() {
        let prefix = ManualPublisher<Int, Never>()
        let suffix = ManualPublisher<Int, Never>()
        let recorder = Recorder<Int, Never>()
        prefix.append(suffix).subscribe(recorder)
        prefix.send(1)
        recorder.cancel()
        recorder.cancel()
        prefix.send(2)
        prefix.send(completion: .finished)
        XCTAssertEqual(prefix.history, [.request(.unlimited), .cancel])
        XCTAssertEqual(suffix.history, [])
        XCTAssertEqual(recorder.values, [1])
    }

    func testCancelDuringTheSuffixCancelsIt() {
        let suffix = ManualPublisher<Int, Never>()
        let recorder = Recorder<Int, Never> { recorder, value in
            if value == 2 { recorder.cancel() }
            return .none
        }
        Just(1).append(suffix).subscribe(recorder)
        suffix.send(2)
        suffix.send(3)
        XCTAssertEqual(suffix.history, [.request(.unlimited), .cancel])
        XCTAssertEqual(recorder.events, [.subscription("Concatenate"), .value(1), .value(2)])
    }

    func testCancelAfterCompletionDoesNothing() {
        let recorder = Recorder<Int, Never>()
        Just(1).append(2).subscribe(recorder)
        recorder.cancel()
        XCTAssertEqual(recorder.values, [1, 2])
        XCTAssertEqual(recorder.completions, [.finished])
    }

    func testEquatableWhenPrefixAndSuffixAre() {
        XCTAssertEqual(Just(1).append(2), Just(1).append(2))
        XCTAssertNotEqual(Just(1).append(2), Just(1).append(3))
        XCTAssertEqual(Just(1).prepend([0]), Just(1).prepend([0]))
    }

    func testReleasesTheSubscriberAfterCancelAndAfterCompletion() {
        let subject = PassthroughSubject<Int, Never>()
        weak var cancelled: Recorder<Int, Never>?
        weak var completed: Recorder<Int, Never>?
        var subscription: Subscription?
        do {
            let recorder = Recorder<Int, Never>()
            cancelled = recorder
            subject.append(1).subscribe(recorder)
            subscription = recorder.subscription
            let other = Recorder<Int, Never>()
            completed = other
            Just(1).append(subject).subscribe(other)
        }
        subscription?.cancel()
        XCTAssertNil(cancelled)
        subject.send(completion: .finished)
        XCTAssertNil(completed)
    }
}

final class ConcatenateConcurrencyTests: XCTestCase {
    func testRequestsRacingTheHandOverToTheSuffixAreNeitherLostNorDoubled() {
        for _ in 0..<200 {
            let prefix = PassthroughSubject<Int, Never>()
            let recorder = Recorder<Int, Never>(initialDemand: .max(1))
            prefix.append(0..<1_000).subscribe(recorder)
            runConcurrently(threads: 2) { thread in
                if thread == 0 {
                    prefix.send(completion: .finished)
                } else {
                    for _ in 0..<10 { recorder.request(.max(1)) }
                }
            }
            XCTAssertEqual(recorder.values, Array(0..<11), "exactly the 11 requested")
        }
    }

    /// Lock inversion: the downstream takes a user lock that the thread requesting from another thread holds.
    func testSubscriberTakingALockHeldByARequestingThreadDoesNotDeadlock() {
        let userLock = NSRecursiveLock()
        let received = LockedBox(0)
        let recorder = Recorder<Int, Never>(initialDemand: nil) { _, _ in
            userLock.lock()
            received.withLock { $0 += 1 }
            userLock.unlock()
            return .none
        }
        let prefix = PassthroughSubject<Int, Never>()
        prefix.append(0..<1_000).subscribe(recorder)
        runConcurrently(threads: 2, timeout: 60) { thread in
            if thread == 0 {
                prefix.send(completion: .finished)
            } else {
                for _ in 0..<1_000 {
                    userLock.lock()
                    recorder.request(.max(1))
                    userLock.unlock()
                }
            }
        }
        XCTAssertEqual(received.withLock { $0 }, 1_000)
    }
}

// Scenarios of bugs other Combine implementations shipped and later fixed.
extension ConcatenateTests {
    // OpenCombine/OpenCombine 3d3adb5: a suffix that finishes from inside its own cancel() reached the subscriber
    // after the cancel.
    func testCompletionSentWhileCancellingTheSuffixIsNotDelivered() {
        let prefix = ManualPublisher<Int, Never>()
        let suffix = ReentrantUpstream<Int, Never>(onCancel: { $0.finish() })
        let recorder = Recorder<Int, Never>()
        prefix.append(suffix).subscribe(recorder)
        prefix.send(1)
        prefix.finish()
        suffix.send(2)
        recorder.cancel()
        XCTAssertEqual(recorder.events, [.subscription("Concatenate"), .value(1), .value(2)])
        XCTAssertEqual(suffix.log, ["request(unlimited)", "cancel"])
    }

    // cx-org/CombineX e881b00: when the prefix finished with the subscriber's demand used up, the suffix was asked
    // for zero demand.
    func testSuffixIsNotAskedForZeroDemandWhenThePrefixUsedItAll() {
        let prefix = ManualPublisher<Int, Never>()
        let suffix = ManualPublisher<Int, Never>()
        let recorder = Recorder<Int, Never>(initialDemand: .max(1))
        prefix.append(suffix).subscribe(recorder)
        prefix.send(1)
        prefix.finish()
        XCTAssertEqual(suffix.subscriptions, 1)
        XCTAssertEqual(suffix.history, [], "no request(.none)")
        recorder.request(.max(1))
        suffix.send(2)
        XCTAssertEqual(suffix.history, [.request(.max(1))])
        XCTAssertEqual(recorder.events, [.subscription("Concatenate"), .value(1), .value(2)])
    }
}
