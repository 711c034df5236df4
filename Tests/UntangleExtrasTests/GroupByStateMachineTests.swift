import Testing
import Untangle
import XCTest

@testable import UntangleExtras

/// groupBy's phases, tested as a pure state machine: the outer subscriber live, gone while subscribed groups run,
/// or ended.
final class GroupByStateMachineTests: XCTestCase {
    typealias Machine = GroupByStateMachine<String, Int>

    private final class Token: Subscription, @unchecked Sendable {
        func request(_ demand: Subscribers.Demand) {}
        func cancel() {}
    }

    func testWhileTheOuterSubscriberIsLiveNewKeysCreateGroups() {
        var machine = Machine()
        XCTAssertTrue(machine.subscribed(Token()))
        XCTAssertFalse(machine.subscribed(Token()), "a second upstream is refused")
        guard case .create(let id) = machine.route("a") else { return XCTFail("a new key creates a group") }
        XCTAssertTrue(machine.add(10, key: "a", id: id))
        guard case .existing(10) = machine.route("a") else { return XCTFail("the key's group is found") }
        XCTAssertTrue(machine.outerIsLive)
        XCTAssertFalse(machine.isTerminated)
    }

    func testAfterTheOuterCancelSubscribedGroupsRunUntilTheLastCancelsThenTheUpstreamIsCancelled() {
        var machine = Machine()
        let upstream = Token()
        _ = machine.subscribed(upstream)
        guard case .create(let a) = machine.route("a") else { return XCTFail() }
        _ = machine.add(1, key: "a", id: a)
        guard case .create(let b) = machine.route("b") else { return XCTFail() }
        _ = machine.add(2, key: "b", id: b)
        machine.groupSubscribed("a", id: a)
        let outer = machine.outerCancelled()
        XCTAssertEqual(outer.unsubscribed, [2], "the group nobody subscribed to is handed back")
        XCTAssertNil(outer.cancel, "a subscribed group is still live")
        XCTAssertFalse(machine.outerIsLive)
        XCTAssertFalse(machine.isTerminated)
        guard case .drop = machine.route("c") else { return XCTFail("no new group without the outer subscriber") }
        XCTAssertFalse(machine.add(3, key: "c", id: 99))
        XCTAssertNil(machine.outerCancelled().cancel, "the outer cancel counts once")
        XCTAssertTrue((machine.groupCancelled("a", id: a) as? Token) === upstream)
        XCTAssertTrue(machine.isTerminated)
        XCTAssertFalse(machine.subscribed(Token()))
    }

    func testTheUpstreamCompletingEndsAndHandsBackEveryGroupOnce() {
        var machine = Machine()
        _ = machine.subscribed(Token())
        guard case .create(let a) = machine.route("a") else { return XCTFail() }
        _ = machine.add(1, key: "a", id: a)
        XCTAssertEqual(machine.upstreamCompleted(), [1])
        XCTAssertNil(machine.upstreamCompleted())
        XCTAssertTrue(machine.isTerminated)
        XCTAssertNil(machine.outerCancelled().cancel)
        guard case .drop = machine.route("a") else { return XCTFail("dropped once ended") }
    }

    func testAGroupWaitsForItsSubscriberAndAStaleIdIsIgnored() {
        var machine = Machine()
        _ = machine.subscribed(Token())
        guard case .create(let a) = machine.route("a") else { return XCTFail() }
        _ = machine.add(1, key: "a", id: a)
        machine.groupSubscribed("a", id: a + 1)
        XCTAssertNil(machine.groupCancelled("a", id: a + 1), "another group's id changes nothing")
        XCTAssertEqual(
            machine.outerCancelled().unsubscribed, [1], "still waiting for its subscriber: ended with the outer")
    }

    /// The phase takes less memory than the two flags it replaced (58 bytes then): it is stored last, so its tag
    /// byte packs after the words.
    func testThePhaseTakesNoMoreMemoryThanTheFlagsItReplaced() {
        XCTAssertEqual(MemoryLayout<Machine>.size, 57)
    }
}

/// The event groupBy's subscription can never send, trapped with its message (in a child process).
@Suite struct GroupByStateMachineTrapTests {
    @Test func aGroupSubscribedTwiceTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            var machine = GroupByStateMachine<String, Int>()
            guard case .create(let id) = machine.route("a") else { return }
            _ = machine.add(1, key: "a", id: id)
            machine.groupSubscribed("a", id: id)
            machine.groupSubscribed("a", id: id)
        }
        #expect(result?.standardErrorText.contains("GroupByStateMachine: groupSubscribed twice for one group") == true)
    }
}
