import UntangleSync
import XCTest

@testable import Untangle

/// The emitter state machine's memory layout, which the lock-free path and the per-subscription memory budget rely
/// on. These are checked here, in every `swift test`, rather than by asserts (which release builds drop): a field
/// added, reordered or widened fails one of them.
final class EmitterStateMachineLayoutTests: XCTestCase {
    typealias SinkMachine = EmitterStateMachine<Subscribers.Sink<Int, Never>>
    typealias FailingMachine = EmitterStateMachine<Recorder<Int, Error>>

    /// `SerialEmitter.offer`'s lock-free path reads the downstream reference in place at the machine's address.
    func testTheDownstreamIsTheFirstStoredProperty() {
        XCTAssertEqual(MemoryLayout<SinkMachine>.offset(of: \SinkMachine.downstream), 0)
        XCTAssertEqual(MemoryLayout<FailingMachine>.offset(of: \FailingMachine.downstream), 0)
        XCTAssertEqual(
            MemoryLayout<DownstreamReference<Subscribers.Sink<Int, Never>>?>.size, MemoryLayout<AnyObject>.size,
            "the downstream is one reference, nil as a null pointer")
    }

    /// What the lock-free path reads there (one reference, loaded in place) is the downstream's one object: the sink
    /// itself, or the box of any other subscriber.
    func testTheLeadingReferenceReadInPlaceIsTheDownstreamsObject() {
        let sink = Subscribers.Sink<Int, Never>(receiveCompletion: { _ in }, receiveValue: { _ in })
        var sinkMachine = SinkMachine(downstream: sink, policy: .dropWithoutDemand)
        let readSink = withUnsafeMutablePointer(to: &sinkMachine) { machine in
            ObjectIdentifier(UnsafeRawPointer(machine).load(as: AnyObject.self))
        }
        XCTAssertEqual(readSink, ObjectIdentifier(sink))

        var failingMachine = FailingMachine(downstream: Recorder<Int, Error>(), policy: .dropWithoutDemand)
        let readBox = withUnsafeMutablePointer(to: &failingMachine) { machine in
            ObjectIdentifier(UnsafeRawPointer(machine).load(as: AnyObject.self))
        }
        XCTAssertEqual(readBox, failingMachine.downstream.map { ObjectIdentifier($0.object) })
    }

    /// Every subject subscription holds one machine inline (the memory-per-subscription workload): four words, then
    /// the phases, the policy, the sink flag and `keptLatest` packed into bytes (39 bytes with the five flags
    /// the phases replaced); the stride stays five words.
    func testTheMachineForASinkTakesFourWordsAndSixBytes() {
        XCTAssertEqual(MemoryLayout<SinkMachine>.size, 38)
        XCTAssertEqual(MemoryLayout<SinkMachine>.stride, 40)
        XCTAssertEqual(MemoryLayout<SinkMachine.SubscriptionPhase>.size, 1)
        XCTAssertEqual(MemoryLayout<SinkMachine.Termination>.size, 2, "a Never-failing completion takes no word")
    }

    /// With a failure type, the pending completion (an existential) takes a word of its own.
    func testTheMachineForAFailingDownstreamKeepsTheCompletionInOneWord() {
        XCTAssertEqual(MemoryLayout<FailingMachine.Termination>.size, 8)
        XCTAssertEqual(MemoryLayout<FailingMachine>.size, 44)
        XCTAssertEqual(MemoryLayout<FailingMachine>.stride, 48)
    }

    /// The owner word and the machine, as a subject subscription stores them (`SubjectSubscription.state`).
    func testASubjectSubscriptionsInlineStateTakesFiveWordsAndSixBytes() {
        XCTAssertEqual(MemoryLayout<WordAndValue<SinkMachine>>.size, 46)
        XCTAssertEqual(WordAndValue<SinkMachine>.valueOffset, 8)
    }
}
