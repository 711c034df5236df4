import Foundation
import Untangle
import UntangleExtras
import UntangleSync
import UntangleTesting
import XCTest

final class CurrentValueRelayTests: XCTestCase {
    func testNewSubscriberReceivesTheCurrentValueThenAcceptedValues() {
        let relay = CurrentValueRelay(1)
        let recorder = Recorder<Int, Never>()
        relay.subscribe(recorder)
        relay.accept(2)
        XCTAssertEqual(recorder.events, [.subscription("CurrentValueSubject"), .value(1), .value(2)])
        XCTAssertEqual(relay.value, 2)
    }

    /// The relay's own `sink` overloads (the subscription and the sink as one object, as CurrentValueSubject's):
    /// the current value before `sink` returns, then every accepted value, nothing after cancel, never a completion.
    func testTheRelaysSinkOverloadsGetTheCurrentValueThenEveryValueAndNothingAfterCancel() {
        let relay = CurrentValueRelay(0)
        var log: [String] = []
        let both = relay.sink(
            receiveCompletion: { log.append("completion \($0)") }, receiveValue: { log.append("both \($0)") })
        XCTAssertEqual(log, ["both 0"])
        let values = relay.sink { log.append("value \($0)") }
        relay.accept(1)
        both.cancel()
        relay.accept(2)
        values.cancel()
        relay.accept(3)
        XCTAssertEqual(log, ["both 0", "value 0", "both 1", "value 1", "value 2"])
    }

    func testSubscriberWithoutDemandReceivesTheLatestValueWhenItAsks() {
        let relay = CurrentValueRelay(0)
        let recorder = Recorder<Int, Never>(initialDemand: nil)
        relay.subscribe(recorder)
        relay.accept(1)
        relay.accept(2)
        recorder.request(.max(5))
        XCTAssertEqual(recorder.values, [2])
    }

    func testSubscribingToAFinishingPublisherKeepsTheRelayOpen() {
        let relay = CurrentValueRelay(0)
        let recorder = Recorder<Int, Never>()
        relay.subscribe(recorder)
        let connection = Just(5).subscribe(relay)
        relay.accept(6)
        XCTAssertEqual(recorder.events, [.subscription("CurrentValueSubject"), .value(0), .value(5), .value(6)])
        XCTAssertEqual(relay.value, 6)
        connection.cancel()
    }

    func testCancelReleasesTheSubscriber() {
        let relay = CurrentValueRelay(0)
        weak var weakRecorder: Recorder<Int, Never>?
        var subscription: Subscription?
        do {
            let recorder = Recorder<Int, Never>()
            weakRecorder = recorder
            relay.subscribe(recorder)
            subscription = recorder.subscription
        }
        subscription?.cancel()
        XCTAssertNil(weakRecorder)
        _ = subscription
    }
}

final class CurrentValueRelayConcurrencyTests: XCTestCase {
    /// 8 threads accept; the subscriber is serialized and sees every value (unlimited demand); `value` ends as the
    /// last value some thread accepted.
    func testEightAcceptingThreadsAreSerializedAndLoseNothing() {
        let relay = CurrentValueRelay(-1)
        let detector = OverlapDetector()
        let received = LockedBox<[Int]>([])
        let cancellable = relay.sink { value in detector.around { received.withLock { $0.append(value) } } }
        runConcurrently(threads: 8) { thread in
            for i in 0..<2_000 {
                relay.accept(thread * 100_000 + i)
                _ = relay.value
            }
        }
        XCTAssertEqual(detector.overlaps, 0)
        let values = received.withLock { $0 }
        XCTAssertEqual(values.count, 16_001)
        XCTAssertTrue([1_999, 101_999, 201_999, 301_999, 401_999, 501_999, 601_999, 701_999].contains(relay.value))
        cancellable.cancel()
    }

    /// Requests racing accepts: never more than requested, and the latest value is not lost when demand returns.
    func testRequestsRacingAcceptsNeverExceedDemand() {
        let relay = CurrentValueRelay(0)
        let outstanding = LockedBox(0)
        let excess = Counter()
        let detector = OverlapDetector()
        let recorder = Recorder<Int, Never>(initialDemand: nil) { _, _ in
            detector.around {
                if outstanding.withLock({
                    $0 -= 1; return $0
                }) < 0 {
                    excess.increment()
                }
            }
            return .none
        }
        relay.subscribe(recorder)
        runConcurrently(threads: 5) { thread in
            for i in 0..<1_000 {
                if thread == 4 {
                    outstanding.withLock { $0 += 1 }
                    recorder.request(.max(1))
                } else {
                    relay.accept(i)
                }
            }
        }
        XCTAssertEqual(excess.value, 0)
        XCTAssertEqual(detector.overlaps, 0)
        recorder.cancel()
    }

    func testSubscriberTakingALockHeldByAnAcceptingThreadDoesNotDeadlock() {
        let relay = CurrentValueRelay(0)
        let foreign = NSRecursiveLock()
        let seen = Counter()
        let cancellable = relay.sink { _ in
            foreign.lock()
            seen.increment()
            foreign.unlock()
        }
        runConcurrently(threads: 4, timeout: 60) { thread in
            for i in 0..<2_000 {
                if thread == 0 {
                    foreign.lock()
                    relay.accept(i)
                    foreign.unlock()
                } else {
                    relay.accept(i)
                }
            }
        }
        XCTAssertEqual(seen.value, 8_001)
        cancellable.cancel()
    }
}

// Scenarios of bugs other Combine implementations shipped and later fixed.
extension CurrentValueRelayTests {
    // CombineCommunity/CombineExt efa607b (pull request 54): a CurrentValueRelay subscribed to another relay did not
    // forward the values accepted later.
    func testARelaySubscribedToAnotherForwardsItsValueAndLaterOnesWithoutACompletion() {
        let input = CurrentValueRelay<String>("initial")
        let output = CurrentValueRelay<String>("none")
        let connection = input.subscribe(output)
        let recorder = Recorder<String, Never>()
        output.subscribe(recorder)
        input.accept("1")
        input.accept("2")
        XCTAssertEqual(
            recorder.events, [.subscription("CurrentValueSubject"), .value("initial"), .value("1"), .value("2")])
        XCTAssertEqual(input.value, "2", "the input is not fed from the output")
        withExtendedLifetime(connection) {}
    }

    // CombineCommunity/CombineExt 0addd96 and 85aae44 (pull request 137): a relay's value leaked when the relay went
    // away before the cancellables of its subscribers (and when a withLatestFrom chained two relays).
    func testTheValueIsReleasedWhenTheRelayGoesBeforeItsSubscribers() {
        weak var weakValue: Token?
        weak var weakOtherValue: Token?
        var cancellables = Set<AnyCancellable>()
        do {
            let value = Token(1)
            let otherValue = Token(2)
            weakValue = value
            weakOtherValue = otherValue
            let relay = CurrentValueRelay(value)
            let other = CurrentValueRelay(otherValue)
            relay.sink { _ in }.store(in: &cancellables)
            relay.withLatestFrom(other).sink { _ in }.store(in: &cancellables)
        }
        cancellables = []
        XCTAssertNil(weakValue)
        XCTAssertNil(weakOtherValue)
    }
}
