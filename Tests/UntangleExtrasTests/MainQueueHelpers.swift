import Foundation
import XCTest

extension XCTestCase {
    /// Runs the main queue (XCTest's `wait` does) until everything queued on it before this call has run.
    func drainMainQueue() {
        let drained = expectation(description: "main queue drained")
        DispatchQueue.main.async { drained.fulfill() }
        wait(for: [drained], timeout: 30)
    }
}
