import Foundation
import UntangleSync
import XCTest

/// The suite's leak check: every test must leave the library's live-object count (``LiveObjects``, debug builds)
/// where it found it. Registered as a test observer the first time a test uses the shared test support (see
/// `Recorder.init`); from then on each test gets a teardown block that waits (bounded) for releases still running
/// on other threads and fails the test if library objects it created are still alive.
final class LeakCheckObserver: NSObject, XCTestObservation, @unchecked Sendable {
    static let shared = LeakCheckObserver()
    private static let registration: Void = {
        XCTestObservationCenter.shared.addTestObserver(LeakCheckObserver.shared)
    }()

    /// Registers the observer once.
    static func register() {
        _ = registration
    }

    /// Tests that deliberately leave library objects behind (none today) can opt out by name.
    static let exempt: Set<String> = []

    func testCaseWillStart(_ testCase: XCTestCase) {
        guard !LeakCheckObserver.exempt.contains(testCase.name) else { return }
        let baseline = LiveObjects.count
        testCase.addTeardownBlock {
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
