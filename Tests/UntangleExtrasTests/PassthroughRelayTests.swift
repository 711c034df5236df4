import Foundation
import Untangle
import UntangleExtras
import UntangleSync
import UntangleTesting
import XCTest

final class PassthroughRelayTests: XCTestCase {
    func testAcceptDeliversToSubscribersWithDemandAndDropsForOthers() {
        let relay = PassthroughRelay<Int>()
        let eager = Recorder<Int, Never>()
        let lazy = Recorder<Int, Never>(initialDemand: .max(1))
        relay.subscribe(eager)
        relay.subscribe(lazy)
        relay.accept(1)
        relay.accept(2)
        lazy.request(.max(1))
        relay.accept(3)
        XCTAssertEqual(eager.events, [.subscription("PassthroughSubject"), .value(1), .value(2), .value(3)])
        XCTAssertEqual(lazy.events, [.subscription("PassthroughSubject"), .value(1), .value(3)])
    }

    /// `accept` and `receive(subscriber:)` run specialized in the client (`@inlinable`): a sink (the subject's fast
    /// path) and a recorder on one relay must each get every accepted value, and nothing after cancel.
    func testSinkAndRecorderOnOneRelayEachGetEveryAcceptedValue() {
        let relay = PassthroughRelay<Int>()
        var sunk: [Int] = []
        let cancellable = relay.sink { sunk.append($0) }
        let recorder = Recorder<Int, Never>()
        relay.subscribe(recorder)
        relay.accept(1)
        relay.accept(2)
        cancellable.cancel()
        relay.accept(3)
        XCTAssertEqual(sunk, [1, 2], "nothing after cancel")
        XCTAssertEqual(recorder.events, [.subscription("PassthroughSubject"), .value(1), .value(2), .value(3)])
    }

    /// The relay's own `sink` overloads (the subscription and the sink as one object, as PassthroughSubject's):
    /// every accepted value to both kinds, nothing after cancel, and never a completion.
    func testTheRelaysSinkOverloadsDeliverEveryValueAndNothingAfterCancel() {
        let relay = PassthroughRelay<Int>()
        var log: [String] = []
        let both = relay.sink(
            receiveCompletion: { log.append("completion \($0)") }, receiveValue: { log.append("both \($0)") })
        let values = relay.sink { log.append("value \($0)") }
        relay.accept(1)
        both.cancel()
        relay.accept(2)
        values.cancel()
        relay.accept(3)
        XCTAssertEqual(log, ["both 1", "value 1", "value 2"])
    }

    func testSubscribingARelayForwardsValuesButNeverTheCompletion() {
        let relay = PassthroughRelay<Int>()
        let recorder = Recorder<Int, Never>()
        relay.subscribe(recorder)
        let connection = [1, 2, 3].publisher.subscribe(relay)
        relay.accept(4)
        XCTAssertEqual(
            recorder.events, [.subscription("PassthroughSubject"), .value(1), .value(2), .value(3), .value(4)])
        connection.cancel()
    }

    func testRelaySubscribeToAPublisherRequestsUnlimitedAndCancelStopsIt() {
        let relay = PassthroughRelay<Int>()
        let upstream = ManualPublisher<Int, Never>()
        let recorder = Recorder<Int, Never>()
        relay.subscribe(recorder)
        let connection = relay.subscribe(upstream)
        XCTAssertEqual(upstream.history, [.request(.unlimited)])
        upstream.send(1)
        connection.cancel()
        connection.cancel()
        upstream.send(2)
        XCTAssertEqual(upstream.history, [.request(.unlimited), .cancel])
        XCTAssertEqual(recorder.values, [1])
    }

    func testConnectionReleasesTheRelayAfterCancel() {
        weak var weakRelay: PassthroughRelay<Int>?
        let upstream = ManualPublisher<Int, Never>()
        var connection: AnyCancellable?
        do {
            let relay = PassthroughRelay<Int>()
            weakRelay = relay
            connection = upstream.subscribe(relay)
        }
        XCTAssertNotNil(weakRelay, "a live connection keeps the relay, as Combine's subscribe(subject) does")
        connection?.cancel()
        XCTAssertNil(weakRelay)
    }

    func testConnectionReleasesTheRelayAfterTheUpstreamFinishes() {
        weak var weakRelay: PassthroughRelay<Int>?
        let upstream = ManualPublisher<Int, Never>()
        var connection: AnyCancellable?
        do {
            let relay = PassthroughRelay<Int>()
            weakRelay = relay
            connection = upstream.subscribe(relay)
        }
        upstream.send(completion: .finished)
        XCTAssertNil(weakRelay)
        _ = connection
    }

    func testCancelReleasesTheSubscriber() {
        let relay = PassthroughRelay<Int>()
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

final class PassthroughRelayConcurrencyTests: XCTestCase {
    func testEightAcceptingThreadsAreSerializedAndLoseNothing() {
        let relay = PassthroughRelay<Int>()
        let detector = OverlapDetector()
        let perThread = LockedBox([[Int]](repeating: [], count: 8))
        let cancellable = relay.sink { value in
            detector.around { perThread.withLock { $0[value / 100_000].append(value % 100_000) } }
        }
        runConcurrently(threads: 8) { thread in
            for i in 0..<2_000 { relay.accept(thread * 100_000 + i) }
        }
        XCTAssertEqual(detector.overlaps, 0)
        for thread in 0..<8 {
            XCTAssertEqual(perThread.withLock { $0[thread] }, Array(0..<2_000))
        }
        cancellable.cancel()
    }

    func testSubscriberTakingALockHeldByAnAcceptingThreadDoesNotDeadlock() {
        let relay = PassthroughRelay<Int>()
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
        XCTAssertEqual(seen.value, 8_000)
        cancellable.cancel()
    }

    func testPublishersForwardingIntoOneRelayFromEightThreads() {
        let relay = PassthroughRelay<Int>()
        let detector = OverlapDetector()
        let received = Counter()
        let cancellable = relay.sink { _ in detector.around { _ = received.increment() } }
        runConcurrently(threads: 8) { thread in
            let connection = (0..<1_000).publisher.subscribe(relay)
            connection.cancel()
        }
        XCTAssertEqual(detector.overlaps, 0)
        XCTAssertEqual(received.value, 8_000)
        cancellable.cancel()
    }
}

// Scenarios of bugs other Combine implementations shipped and later fixed.
extension PassthroughRelayTests {
    // CombineCommunity/CombineExt efa607b (pull request 54): `input.subscribe(output)` between two relays forwarded
    // nothing from input to output (it picked the overload that subscribes the receiver to its argument).
    func testARelaySubscribedToAnotherRelayForwardsTheValuesItAccepts() {
        let input = PassthroughRelay<String>()
        let output = PassthroughRelay<String>()
        let connection = input.subscribe(output)
        let recorder = Recorder<String, Never>()
        output.subscribe(recorder)
        input.accept("1")
        input.accept("2")
        output.accept("3")
        XCTAssertEqual(recorder.events, [.subscription("PassthroughSubject"), .value("1"), .value("2"), .value("3")])
        connection.cancel()
        input.accept("4")
        XCTAssertEqual(recorder.values, ["1", "2", "3"])
    }
}
