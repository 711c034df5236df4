import XCTest

@testable import UntangleSync

/// `UnlockedValue`: the view reads the value in place (later writes through the owner show) and borrows the
/// reference at its start.
final class UnlockedValueTests: XCTestCase {
    final class Probe {}

    struct Machine {
        var downstream: Probe
        var isSink: Bool
    }

    func testReadsTheValueInPlaceAndBorrowsItsLeadingReference() {
        let probe = Probe()
        var machine = Machine(downstream: probe, isSink: false)
        withUnsafeMutablePointer(to: &machine) { address in
            let view = UnlockedValue(address)
            XCTAssertFalse(view.pointee.isSink)
            address.pointee.isSink = true
            XCTAssertTrue(view.pointee.isSink, "the view reads in place, not a copy")
            let borrowed = view.borrowLeadingObject { $0 === probe }
            XCTAssertTrue(borrowed, "the leading reference is the value's first stored property")
        }
    }
}
