import XCTest

@testable import Untangle
@testable import UntangleSync

/// Where a subject subscription's inline emitter state is: `SubjectSubscription.stateAddress` computes it from the
/// object's layout (the stored properties' start plus the base class's one reference), and the lock-free path
/// compare-exchanges the owner word and reads the state machine there. Checked here against Swift's own addresses of
/// the properties in every `swift test`, for failure types of every alignment, not only by the debug assert in init.
final class SubjectSubscriptionLayoutTests: XCTestCase {
    struct WideError: Error {
        var lanes: SIMD4<Float>
    }

    func checkLayout<Failure: Error>(
        _ failure: Failure.Type, file: StaticString = #filePath, line: UInt = #line
    ) {
        let subject = PassthroughSubject<Int, Failure>()
        let recorder = Recorder<Int, Failure>()
        subject.subscribe(recorder)
        guard let subscription = recorder.subscription as? SubjectSubscription<Recorder<Int, Failure>> else {
            return XCTFail("a subject hands out SubjectSubscription", file: file, line: line)
        }
        let computed = subscription.stateAddress
        let stateAddress = withUnsafeMutablePointer(to: &subscription.state) { UnsafeMutableRawPointer($0) }
        let machineAddress = withUnsafeMutablePointer(to: &subscription.state.value) { UnsafeMutableRawPointer($0) }
        XCTAssertEqual(computed, stateAddress, "the state's address", file: file, line: line)
        XCTAssertEqual(
            computed + WordAndValue<EmitterStateMachine<Recorder<Int, Failure>>>.valueOffset, machineAddress,
            "the state machine's address", file: file, line: line)
        withExtendedLifetime(subject) {}
    }

    func testTheInlineStateIsWhereItsAddressIsComputedForANeverFailingSubscriber() {
        checkLayout(Never.self)
    }

    func testTheInlineStateIsWhereItsAddressIsComputedForAnErrorFailingSubscriber() {
        checkLayout(Error.self)
    }

    func testTheInlineStateIsWhereItsAddressIsComputedForAnOverAlignedFailure() {
        XCTAssertEqual(MemoryLayout<WideError>.alignment, 16)
        checkLayout(WideError.self)
    }
}
