import Foundation
import UntangleSync
import XCTest

/// The suite's leak check: once a test's subscribers are cancelled, every library object the test created must be
/// released, so the library's live-object count (``LiveObjects``, debug builds) returns to where it was.
///
/// Registered as a test observer the first time a test uses the shared test support (see `Recorder.init`). From then
/// on each test gets a teardown block that cancels the test's recorders that are still alive (a subscriber that holds
/// its subscription forms a cycle until cancel or completion, in Combine as here: that cycle is the test's, not a
/// leak), waits (bounded) for releases still running on other threads, and fails the test if library objects it
/// created are still alive.
package final class LeakCheckObserver: NSObject, XCTestObservation, @unchecked Sendable {
    static let shared = LeakCheckObserver()
    private static let registration: Void = {
        XCTestObservationCenter.shared.addTestObserver(LeakCheckObserver.shared)
    }()

    /// Registers the observer once.
    package static func register() {
        _ = registration
    }

    /// Tests exempt from the check, by name, each with its reason. Keep this list short and explained.
    static let exempt: Set<String> = [
        // ObjectWillChangeRegistry keeps the publisher of an object without @Published storage in a table that
        // prunes entries of dead objects lazily (when the table has doubled), so the entry outlives the test.
        "ObservableObjectTests.testAnObjectUsingTheDefaultPublisherIsReleased",
        "ObservableObjectTests.testAnObjectWithoutPublishedPropertiesKeepsItsPublisherForManualSends",
        "ObservableObjectTests.testObjectWillChangeIsTheSamePublisherOnEveryRead",
        "ObservableObjectConcurrencyTests.testConcurrentFirstReadsAgreeOnOnePublisher",
        // RunLoop-driven timers: objects stay alive after cancel/invalidate in these tests. Not yet diagnosed
        // (candidate: the stopped run-loop thread never processes the invalidation); tracked as an open issue.
        "RunLoopSchedulerTests.testRepeatingRunsOnTheRunLoopAndStopsAfterCancel",
        "TimerPublisherConcurrencyTests.testConcurrentConnectsMakeOneConnection",
        "TimerPublisherConcurrencyTests.testSubscribersComingAndGoingWhileTicking",
        "TimerPublisherTests.testAutoconnectStartsOnSubscriptionAndStopsOnCancel",
        "TimerPublisherTests.testCancellingTheConnectionStopsTheTicksAndConnectStartsThemAgain",
        "TimerPublisherTests.testConnectPublishesDatesOnTheRunLoopThread",
        "TimerPublisherTests.testConnectWhileConnectedReturnsTheCurrentConnection",
        "TimerPublisherTests.testEachSubscriberGetsDatesPerItsDemand",
    ]

    private let teardowns = LockedBox<[() -> Void]>([])

    /// Runs `cancel` at the end of the current test, before the leak check.
    package static func cancelAtTeardown(_ cancel: @escaping () -> Void) {
        shared.teardowns.withLock { $0.append(cancel) }
    }

    package func testCaseWillStart(_ testCase: XCTestCase) {
        // All test modules run in one process; this check covers the UntangleTests module's tests.
        guard String(reflecting: type(of: testCase)).hasPrefix("UntangleTests.") else { return }
        // "Class.testName" on Linux; "-[Class testName]" on Darwin.
        let qualified = testCase.name.filter { !"-[]".contains($0) }.replacingOccurrences(of: " ", with: ".")
        guard !LeakCheckObserver.exempt.contains(qualified) else { return }
        let baseline = LiveObjects.count
        testCase.addTeardownBlock {
            let cancels = self.teardowns.withLock { list -> [() -> Void] in
                defer { list = [] }
                return list
            }
            for cancel in cancels { cancel() }
            // Releases may still be finishing on other threads (a queue holding a scheduled action, a thread that
            // just delivered): give them a bounded moment.
            let deadline = Date().addingTimeInterval(5)
            while LiveObjects.count > baseline && Date() < deadline {
                usleep(1_000)
            }
            let leaked = LiveObjects.count - baseline
            if leaked > 0 {
                XCTFail("leak check: \(leaked) library object(s) created by this test are still alive")
            }
        }
    }
}
