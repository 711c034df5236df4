import Testing
import XCTest

@testable import Untangle

/// zip's machine and its outbox (active, finishing, ended; who forwards), decision by decision.
final class ZipStateMachineTests: XCTestCase {
    private func subscribed(_ count: Int) -> (ZipStateMachine, [LoggingSubscription]) {
        var machine = ZipStateMachine(upstreamCount: count, senders: CombiningSender())
        let subscriptions = (0..<count).map { _ in LoggingSubscription() }
        for (index, subscription) in subscriptions.enumerated() {
            XCTAssertEqual(machine.innerSubscribed(index, subscription), Subscribers.Demand.none)
        }
        return (machine, subscriptions)
    }

    /// Everything the forwarder takes until it is told to stop.
    private func forwarded(_ machine: inout ZipStateMachine) -> [String] {
        var steps: [String] = []
        while true {
            switch machine.nextToForward() {
            case .value(let group): steps.append(group.map { "\($0)" }.joined(separator: ","))
            case .finish: return steps + ["finish"]
            case .idle: return steps
            }
        }
    }

    func testTheOldestValuesPairAndTheThreadThatFormsAGroupForwardsIt() {
        var (machine, _) = subscribed(2)
        XCTAssertFalse(machine.received(1, at: 0).startForwarding, "no group yet")
        XCTAssertFalse(machine.received(2, at: 0).startForwarding)
        XCTAssertTrue(machine.received("a", at: 1).startForwarding, "a group formed and nobody forwards")
        XCTAssertFalse(machine.received("b", at: 1).startForwarding, "the forwarder takes this one too")
        XCTAssertEqual(forwarded(&machine), ["1,a", "2,b"])
        XCTAssertFalse(machine.received(3, at: 0).startForwarding)
        XCTAssertTrue(machine.received("c", at: 1).startForwarding, "the role was given up")
        XCTAssertEqual(forwarded(&machine), ["3,c"])
    }

    func testAFinishedUpstreamWithNothingUnpairedFinishesTheZipAfterTheFormedGroups() {
        var (machine, subscriptions) = subscribed(2)
        _ = machine.received(1, at: 0)
        _ = machine.received(2, at: 0)
        XCTAssertTrue(machine.received("a", at: 1).startForwarding)
        let finish = machine.finished(at: 1)
        XCTAssertEqual(identities(finish.cancel), identities(subscriptions[0]), "the other upstream")
        XCTAssertEqual(finish.release.count, 2, "upstream 1's subscription and the unpaired 2")
        XCTAssertFalse(finish.startForwarding, "the forwarder is still at work")
        XCTAssertEqual(forwarded(&machine), ["1,a", "finish"])
        XCTAssertNil(machine.innerSubscribed(0, LoggingSubscription()))
        XCTAssertNil(machine.cancelled(), "ended")
    }

    func testAFinishWithUnpairedValuesLeftWaitsForThem() {
        var (machine, _) = subscribed(2)
        _ = machine.received(1, at: 0)
        XCTAssertEqual(machine.finished(at: 0).cancel.count, 0, "its value may still pair")
        XCTAssertTrue(machine.received("a", at: 1).startForwarding)
        XCTAssertEqual(forwarded(&machine), ["1,a", "finish"])
    }

    func testAFailureEndsTheZipCancellingEveryUpstreamAndReleasingWhatWaits() {
        var (machine, subscriptions) = subscribed(2)
        _ = machine.received(1, at: 0)
        let ending = machine.failed(at: 1)
        XCTAssertEqual(identities(ending?.cancel ?? []), identities(subscriptions))
        XCTAssertEqual((ending?.released as? [Any])?.count, 1, "the unpaired value")
        XCTAssertNil(machine.failed(at: 0), "the first completion wins")
        XCTAssertEqual(machine.request(.max(1)).count, 0)
        XCTAssertFalse(machine.received(2, at: 1).startForwarding, "dropped")
    }

    func testDemandArrivingWhileAnUpstreamDeliversOnThisThreadGoesBackToIt() {
        let senders = CombiningSender()
        var machine = ZipStateMachine(upstreamCount: 2, senders: senders)
        let a = LoggingSubscription()
        let b = LoggingSubscription()
        _ = machine.innerSubscribed(0, a)
        _ = machine.innerSubscribed(1, b)
        senders.enter(1)
        XCTAssertEqual(identities(machine.request(.max(2))), identities(a), "upstream 1 takes it as its return value")
        XCTAssertEqual(senders.leave(), .max(2))
        XCTAssertEqual(identities(machine.request(.max(1))), identities(a, b))
    }
}

/// The steps zip's outbox can never be asked for, each trapped with its message (in a child process).
@Suite struct ZipStateMachineTrapTests {
    @Test func aStepOfTheOutboxByAThreadThatIsNotTheForwarderTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            var outbox = CombiningOutbox()
            _ = outbox.nextToForward()
        }
        #expect(
            result?.standardErrorText.contains(
                "CombiningOutbox: nextToForward() in active by a thread that has not claimed forwarding") == true)
    }

    @Test func aSecondFinishOfTheOutboxTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            var outbox = CombiningOutbox()
            outbox.finish()
            outbox.finish()
        }
        #expect(result?.standardErrorText.contains("CombiningOutbox: finish() in finishing") == true)
    }
}
