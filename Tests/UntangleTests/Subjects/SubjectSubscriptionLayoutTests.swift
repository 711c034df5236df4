import XCTest

@testable import Untangle
@testable import UntangleSync

/// Where a subject subscription's inline emitter state is: `SubjectSubscription.inlineState` (an `InlineOwnedState`)
/// computes it from the object's layout (the stored properties' start plus the base class's one reference, its
/// `Unmanaged` reference to the entries; the state laid out as `WordAndValue`), and the lock-free path
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
        guard let subscription = recorder.subscription as? SubjectSubscriptionOf<Recorder<Int, Failure>> else {
            return XCTFail("a subject hands out SubjectSubscription", file: file, line: line)
        }
        let inline = subscription.inlineState
        let machineAddress = withUnsafeMutablePointer(to: &subscription.state.machine) { $0 }
        let stateAddress = withUnsafeMutablePointer(to: &subscription.state) { UnsafeMutableRawPointer($0) }
        XCTAssertTrue(
            subscription.isInlineStateAddress(of: &subscription.state), "the state's address", file: file, line: line)
        typealias State = SubjectSubscriptionState<EmitterStateMachine<Recorder<Int, Failure>>>
        XCTAssertEqual(
            stateAddress,
            _getUnsafePointerToStoredProperties(subscription)
                + MemoryLayout<State>.offset(placedAfter: MemoryLayout<AnyObject>.size),
            "the state follows the base class's one reference, at its alignment", file: file, line: line)
        XCTAssertEqual(
            MemoryLayout<State>.offset(of: \.machine),
            WordAndValue<EmitterStateMachine<Recorder<Int, Failure>>>.valueOffset,
            "the machine is where WordAndValue puts it", file: file, line: line)
        XCTAssertEqual(inline.value, machineAddress, "the state machine's address", file: file, line: line)
        XCTAssertEqual(
            inline.withUnlockedValue { $0 }, machineAddress, "the lock-free path's address", file: file, line: line)
        withExtendedLifetime(subject) {}
    }

    /// `inlineState` counts the base class's stored properties as one reference: the entries, kept as an optional
    /// `Unmanaged`.
    func testTheConduitsOnlyStoredPropertyIsOneReferenceWide() {
        XCTAssertEqual(
            MemoryLayout<Unmanaged<SubjectConduitEntries<Int, Error>>?>.size, MemoryLayout<AnyObject>.size)
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
