import Testing
import XCTest

@testable import Untangle

/// The phases of a source with its elements at hand (`Just`, `Publishers.Sequence`, `Record`...), tested as a pure
/// state machine: the subscription callout (nobody emitting, or its thread emitting nested), idle, emitting,
/// cancelled while emitting, ended.
final class SynchronousSourceStateMachineTests: XCTestCase {
    typealias Machine = SynchronousSourceStateMachine<Recorder<Int, Never>, String>
    let me = ThreadID.current
    /// Another thread's identity (only compared, never used).
    lazy var other = ThreadID(bits: me.bits &+ 16)!
    let downstream = Recorder<Int, Never>()

    private func machine() -> Machine {
        Machine(downstream: downstream, source: "source", subscribingThread: me)
    }

    /// The callout returned with no demand: nobody emits.
    private func idle() -> Machine {
        var machine = machine()
        XCTAssertNil(machine.subscriptionCalloutReturned())
        guard case .idle = machine.phase else {
            XCTFail("no demand, nobody emits")
            return machine
        }
        return machine
    }

    func testARequestOnTheSubscribingThreadInsideTheCalloutEmitsNestedAndGoesBackToTheCallout() {
        var machine = machine()
        XCTAssertTrue(machine.request(.max(2), on: me) === downstream, "nested emission, as in Combine")
        guard case .emittingInSubscription = machine.phase else { return XCTFail() }
        XCTAssertNil(machine.request(.max(1), on: me), "a reentrant request only adds demand")
        XCTAssertEqual(machine.takeOne(adding: .none), .one)
        XCTAssertEqual(machine.takeOne(adding: .none), .one)
        XCTAssertEqual(machine.takeOne(adding: .none), .one)
        XCTAssertEqual(machine.takeOne(adding: .none), .stop)
        guard case .subscribing(let thread) = machine.phase, thread == me else {
            return XCTFail("out of demand, back in the callout")
        }
        XCTAssertNil(machine.subscriptionCalloutReturned())
        guard case .idle = machine.phase else { return XCTFail() }
    }

    func testARequestFromAnotherThreadDuringTheCalloutWaitsForItToReturn() {
        var machine = machine()
        XCTAssertNil(machine.request(.max(1), on: other), "no receive(_:) during receive(subscription:)")
        guard case .subscribing = machine.phase else { return XCTFail() }
        XCTAssertTrue(machine.subscriptionCalloutReturned() === downstream, "the subscribing thread emits it now")
        guard case .emitting = machine.phase else { return XCTFail() }
        XCTAssertEqual(machine.takeOne(adding: .none), .one)
    }

    func testAnIdleSourceIsEmittedByTheNextRequestAndStopsOutOfDemand() {
        var machine = idle()
        XCTAssertTrue(machine.request(.max(1), on: other) === downstream)
        XCTAssertNil(machine.request(.max(1), on: me), "somebody emits already")
        XCTAssertEqual(machine.takeOne(adding: .none), .one)
        XCTAssertEqual(machine.takeOne(adding: .max(1)), .one, "the returned demand is added")
        XCTAssertEqual(machine.takeOne(adding: .none), .one)
        XCTAssertEqual(machine.takeOne(adding: .none), .stop)
        guard case .idle = machine.phase else { return XCTFail() }
    }

    func testUnlimitedDemandIsNotCountedAnyMore() {
        var machine = idle()
        _ = machine.request(.unlimited, on: me)
        XCTAssertEqual(machine.takeOne(adding: .none), .unlimited)
        XCTAssertEqual(machine.demand, .unlimited)
    }

    func testTheLastElementEndsTheSubscriptionAndHandsBackTheDownstreamToComplete() {
        var machine = idle()
        _ = machine.request(.max(1), on: me)
        XCTAssertEqual(machine.source, "source")
        let (finished, source) = machine.finish()
        XCTAssertTrue(finished === downstream)
        XCTAssertEqual(source, "source")
        XCTAssertNil(machine.source)
        XCTAssertTrue(machine.isOver)
        XCTAssertNil(machine.request(.max(1), on: me), "nothing after the end")
        XCTAssertNil(machine.cancel().released, "a cancel after the end releases nothing")
    }

    func testACancelWhileNobodyEmitsEndsAtOnceAndTheCancellerReleasesTheElements() {
        var idle = idle()
        let (released, releaseElements) = idle.cancel()
        XCTAssertTrue(released?.0 === downstream)
        XCTAssertEqual(released?.1, "source")
        XCTAssertTrue(releaseElements)
        guard case .ended = idle.phase else { return XCTFail() }

        var subscribing = machine()
        XCTAssertTrue(subscribing.cancel().releaseElements, "nobody emits during the callout either")
        XCTAssertNil(subscribing.subscriptionCalloutReturned(), "the callout returns to an ended subscription")
    }

    func testACancelWhileEmittingIsFinishedByTheEmitterWhichReleasesTheElements() {
        var machine = idle()
        _ = machine.request(.max(5), on: me)
        let (released, releaseElements) = machine.cancel()
        XCTAssertTrue(released?.0 === downstream)
        XCTAssertFalse(releaseElements, "the emitting thread may be using them")
        XCTAssertTrue(machine.isOver)
        XCTAssertNil(machine.source)
        XCTAssertNil(machine.cancel().released, "cancel is idempotent")
        XCTAssertNil(machine.request(.max(1), on: other))
        XCTAssertEqual(machine.takeOne(adding: .none), .cancelled)
        guard case .ended = machine.phase else { return XCTFail() }
    }

    func testTheLastElementDeliveredAfterACancelCompletesNobody() {
        var machine = idle()
        _ = machine.request(.max(1), on: me)
        _ = machine.cancel()
        let (finished, source) = machine.finish()
        XCTAssertNil(finished)
        XCTAssertNil(source)
        guard case .ended = machine.phase else { return XCTFail() }
    }
}

/// The events the synchronous source's subscription can never send, each trapped with its message (in a child
/// process).
@Suite struct SynchronousSourceStateMachineTrapTests {
    @Test func aStepByAThreadThatDoesNotEmitTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            var machine = SynchronousSourceStateMachine<Recorder<Int, Never>, String>(
                downstream: Recorder(), source: "source", subscribingThread: ThreadID.current)
            _ = machine.takeOne(adding: .none)
        }
        #expect(
            result?.standardErrorText.contains("SynchronousSourceStateMachine: takeOne by a thread that does not emit")
                == true)
    }

    @Test func aFinishByAThreadThatDoesNotEmitTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            var machine = SynchronousSourceStateMachine<Recorder<Int, Never>, String>(
                downstream: Recorder(), source: "source", subscribingThread: ThreadID.current)
            _ = machine.subscriptionCalloutReturned()
            _ = machine.finish()
        }
        #expect(
            result?.standardErrorText.contains("SynchronousSourceStateMachine: finish by a thread that does not emit")
                == true)
    }

    @Test func aCalloutReturningTwiceTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            var machine = SynchronousSourceStateMachine<Recorder<Int, Never>, String>(
                downstream: Recorder(), source: "source", subscribingThread: ThreadID.current)
            _ = machine.subscriptionCalloutReturned()
            _ = machine.subscriptionCalloutReturned()
        }
        #expect(
            result?.standardErrorText.contains(
                "SynchronousSourceStateMachine: subscriptionCalloutReturned outside the callout") == true)
    }
}
