import Untangle
import XCTest

@testable import UntangleExtras

/// The sample's phases, tested as a pure state machine: running (the upstream awaited, subscribed or finished, the
/// sampler's subscription) or terminated.
final class SampleStateMachineTests: XCTestCase {
    typealias Machine = SampleStateMachine<Int>

    private final class Token: Subscription, @unchecked Sendable {
        func request(_ demand: Subscribers.Demand) {}
        func cancel() {}
    }

    func testATickTakesTheLatestValueAndKeepsRunning() {
        var machine = Machine()
        XCTAssertTrue(machine.subscribed(Token(), isSampler: false))
        XCTAssertTrue(machine.subscribed(Token(), isSampler: true))
        XCTAssertFalse(machine.subscribed(Token(), isSampler: true), "a second sampler is refused")
        XCTAssertFalse(machine.subscribed(Token(), isSampler: false), "a second upstream is refused")
        XCTAssertNil(machine.upstreamSent(1))
        XCTAssertEqual(machine.upstreamSent(2), 1, "the replaced value is handed back")
        let tick = machine.tick(samplerFinished: false)
        XCTAssertEqual(tick.value, 2)
        XCTAssertFalse(tick.finish)
        XCTAssertNil(machine.tick(samplerFinished: false).value, "taken once")
        XCTAssertFalse(machine.isTerminated)
    }

    func testTheUpstreamFinishingLetsTheNextTickDeliverThenEndAndCancelTheSampler() {
        var machine = Machine()
        let upstream = Token()
        let sampler = Token()
        _ = machine.subscribed(upstream, isSampler: false)
        _ = machine.subscribed(sampler, isSampler: true)
        _ = machine.upstreamSent(7)
        XCTAssertTrue((machine.upstreamDidFinish() as? Token) === upstream)
        XCTAssertFalse(machine.isTerminated)
        XCTAssertFalse(machine.subscribed(Token(), isSampler: false), "the finished upstream's slot stays closed")
        let tick = machine.tick(samplerFinished: false)
        XCTAssertEqual(tick.value, 7)
        XCTAssertTrue(tick.finish)
        XCTAssertEqual(tick.cancel.count, 1)
        XCTAssertTrue((tick.cancel.first as? Token) === sampler)
        XCTAssertTrue(machine.isTerminated)
    }

    func testTheSamplerFinishingEndsWithoutCancellingIt() {
        var machine = Machine()
        let upstream = Token()
        _ = machine.subscribed(upstream, isSampler: false)
        _ = machine.subscribed(Token(), isSampler: true)
        let tick = machine.tick(samplerFinished: true)
        XCTAssertNil(tick.value)
        XCTAssertTrue(tick.finish)
        XCTAssertEqual(tick.cancel.count, 1)
        XCTAssertTrue((tick.cancel.first as? Token) === upstream)
    }

    func testOnceTerminatedEverythingIsRefusedAndValuesAreHandedBack() {
        var machine = Machine()
        _ = machine.upstreamSent(1)
        XCTAssertEqual(machine.terminate()?.count, 0, "nothing subscribed yet")
        XCTAssertNil(machine.terminate(), "ended once")
        XCTAssertFalse(machine.subscribed(Token(), isSampler: false))
        XCTAssertFalse(machine.subscribed(Token(), isSampler: true))
        XCTAssertEqual(machine.upstreamSent(2), 2)
        XCTAssertNil(machine.upstreamDidFinish())
        let tick = machine.tick(samplerFinished: false)
        XCTAssertNil(tick.value)
        XCTAssertFalse(tick.finish)
    }

    /// The phase takes less memory than the two flags and two optional slots it replaced (91 bytes then).
    func testThePhaseTakesNoMoreMemoryThanTheFlagsItReplaced() {
        XCTAssertEqual(MemoryLayout<Machine>.size, 89)
    }
}
