import Untangle
import XCTest

private final class Target: @unchecked Sendable {
    var text = ""
    var history: [String] = []
    var observed: String = "" {
        didSet { history.append(observed) }
    }
}

final class AssignTests: XCTestCase {
    func testAssignsEveryValueToTheProperty() {
        let target = Target()
        let cancellable = ["a", "b", "c"].publisher.assign(to: \.observed, on: target)
        XCTAssertEqual(target.observed, "c")
        XCTAssertEqual(target.history, ["a", "b", "c"])
        withExtendedLifetime(cancellable) {}
    }

    func testRequestsUnlimitedAndAssignsWhatTheUpstreamSends() {
        let target = Target()
        let assign = Subscribers.Assign(object: target, keyPath: \Target.text)
        let upstream = ManualPublisher<String, Never>()
        upstream.subscribe(assign)
        XCTAssertEqual(upstream.history, [.request(.unlimited)])
        XCTAssertEqual(upstream.send("x"), .none)
        XCTAssertEqual(target.text, "x")
        upstream.send("y")
        XCTAssertEqual(target.text, "y")
        XCTAssertTrue(assign.object === target)
        XCTAssertEqual(assign.keyPath, \Target.text)
    }

    func testSecondSubscriptionIsCancelled() {
        let assign = Subscribers.Assign(object: Target(), keyPath: \Target.text)
        let first = ManualPublisher<String, Never>()
        let second = ManualPublisher<String, Never>()
        first.subscribe(assign)
        second.subscribe(assign)
        XCTAssertEqual(first.history, [.request(.unlimited)])
        XCTAssertEqual(second.history, [.cancel])
    }

    func testCancelForwardsOneCancelAndStopsAssigning() {
        let target = Target()
        let assign = Subscribers.Assign(object: target, keyPath: \Target.text)
        let upstream = ManualPublisher<String, Never>()
        upstream.subscribe(assign)
        upstream.send("x")
        assign.cancel()
        assign.cancel()
        XCTAssertEqual(upstream.history, [.request(.unlimited), .cancel])
        XCTAssertNil(assign.object)
        _ = assign.receive("late")
        XCTAssertEqual(target.text, "x")
    }

    func testCancelBeforeSubscriptionCancelsTheSubscriptionWhenItArrives() {
        let assign = Subscribers.Assign(object: Target(), keyPath: \Target.text)
        assign.cancel()
        let upstream = ManualPublisher<String, Never>()
        upstream.subscribe(assign)
        XCTAssertEqual(upstream.history, [.cancel])
    }

    func testCancelAfterCompletionForwardsNothing() {
        let assign = Subscribers.Assign(object: Target(), keyPath: \Target.text)
        let upstream = ManualPublisher<String, Never>()
        upstream.subscribe(assign)
        upstream.send(completion: .finished)
        assign.cancel()
        XCTAssertEqual(upstream.history, [.request(.unlimited)])
    }

    func testObjectIsReleasedAfterCompletion() {
        weak var weakTarget: Target?
        let assign: Subscribers.Assign<Target, String>
        do {
            let target = Target()
            weakTarget = target
            assign = Subscribers.Assign(object: target, keyPath: \Target.text)
        }
        XCTAssertNotNil(weakTarget, "Assign does not hold its object")
        Just("done").subscribe(assign)
        XCTAssertNil(weakTarget, "Assign still holds its object after the completion")
        XCTAssertNil(assign.object)
    }

    func testObjectIsReleasedAfterCancel() {
        weak var weakTarget: Target?
        let upstream = ManualPublisher<String, Never>()
        var cancellable: AnyCancellable?
        do {
            let target = Target()
            weakTarget = target
            cancellable = upstream.assign(to: \.text, on: target)
        }
        upstream.send("x")
        XCTAssertEqual(weakTarget?.text, "x")
        cancellable?.cancel()
        XCTAssertNil(weakTarget, "the object outlived cancellation")
        XCTAssertEqual(upstream.history, [.request(.unlimited), .cancel])
        withExtendedLifetime(cancellable) {}
    }

    func testReleasingTheCancellableCancelsUpstream() {
        let upstream = ManualPublisher<String, Never>()
        var cancellable: AnyCancellable? = upstream.assign(to: \.text, on: Target())
        withExtendedLifetime(cancellable) {}
        cancellable = nil
        XCTAssertEqual(upstream.history, [.request(.unlimited), .cancel])
    }

    func testDescriptionAndMirror() {
        let target = Target()
        let assign = Subscribers.Assign(object: target, keyPath: \Target.text)
        XCTAssertEqual(assign.description, "Assign Target.")
        XCTAssertEqual(assign.playgroundDescription as? String, "Assign Target.")
        let labels = assign.customMirror.children.map(\.label)
        XCTAssertEqual(labels, ["object", "keyPath", "status"])
        XCTAssertEqual(assign.customMirror.children.map { "\($0.value)" }.last, "awaitingSubscription")
    }

    // Regression: a value that arrives before the subscription was assigned (Combine ignores it).
    // cx-org/CombineX 476cfa4: Assign assigned values an upstream sent before any subscription.
    func testAValueBeforeTheSubscriptionIsIgnored() {
        let target = Target()
        let assign = Subscribers.Assign(object: target, keyPath: \Target.text)
        XCTAssertEqual(assign.receive("early"), .none)
        XCTAssertEqual(target.text, "")
        Just("late").subscribe(assign)
        XCTAssertEqual(target.text, "late")
        XCTAssertEqual(assign.receive("after the end"), .none)
        XCTAssertEqual(target.text, "late")
    }

    // Regression (CombineX's AssignSpec): a completion that arrives before the subscription released the object and
    // ended the subscriber; Combine ignores it, keeps the object and assigns once a subscription arrives.
    func testACompletionBeforeTheSubscriptionIsIgnored() {
        let target = Target()
        let assign = Subscribers.Assign(object: target, keyPath: \Target.text)
        assign.receive(completion: .finished)
        XCTAssertTrue(assign.object === target)
        XCTAssertEqual(assign.customMirror.children.map { "\($0.value)" }.last, "awaitingSubscription")
        let upstream = ManualPublisher<String, Never>()
        upstream.subscribe(assign)
        XCTAssertEqual(upstream.history, [.request(.unlimited)])
        upstream.send("after")
        XCTAssertEqual(target.text, "after")
        upstream.send(completion: .finished)
        XCTAssertNil(assign.object)
    }
}

// Scenarios of bugs other Combine implementations shipped and later fixed.
extension AssignTests {
    // OpenCombine/OpenCombine 925bee4: an upstream that finishes from inside cancel() reentered Assign while it
    // was cancelling.
    func testCompletionSentFromInsideCancelIsHarmless() {
        let target = Target()
        let upstream = ReentrantUpstream<String, Never>(onCancel: { $0.finish() })
        let cancellable = upstream.assign(to: \.observed, on: target)
        upstream.send("a")
        cancellable.cancel()
        upstream.send("b")
        XCTAssertEqual(target.history, ["a"])
        XCTAssertEqual(upstream.log, ["request(unlimited)", "cancel"])
    }

    // cx-org/CombineX 939692f: an Assign that had finished took a second subscription and assigned its values.
    func testAFinishedAssignDoesNotAssignFromASecondUpstream() {
        let target = Target()
        let assign = Subscribers.Assign(object: target, keyPath: \Target.observed)
        let first = PassthroughSubject<String, Never>()
        let second = ManualPublisher<String, Never>()
        first.subscribe(assign)
        first.send("a")
        first.send(completion: .finished)
        second.subscribe(assign)
        second.send("b")
        XCTAssertEqual(target.history, ["a"])
        XCTAssertEqual(second.history, [.cancel])
    }
}
