import XCTest

@testable import UntangleSync

/// `RetainedBits` and `TwoWordBits`: what goes into the words comes back out once, owning what it owned.
final class RetainedBitsTests: XCTestCase {
    final class Probe {}

    // `moving` must keep the caller's reference without a retain of its own: one take gives it back, and the object
    // goes when that is dropped (an extra retain would leak it, a missing one free it early).
    func testMovingKeepsTheHandedOverReferenceUntilItIsTakenBack() {
        weak var weakProbe: Probe?
        var bits = 0
        do {
            let probe = Probe()
            weakProbe = probe
            bits = RetainedBits.moving(probe)
        }
        XCTAssertNotNil(weakProbe, "the words did not keep the reference")
        XCTAssertTrue(RetainedBits.take(bits) === weakProbe)
        XCTAssertNil(weakProbe, "the reference outlived its take")
    }

    // A closure's context is owned by the words between `owning` and `moveOut`.
    func testTwoWordBitsKeepAClosureAndItsContextUntilMovedOut() {
        struct Action { let run: () -> Void }
        weak var weakProbe: Probe?
        var runs = 0
        var words: TwoWordBits.Words = (0, 0)
        do {
            let probe = Probe()
            weakProbe = probe
            words = TwoWordBits.owning(Action { withExtendedLifetime(probe) { runs += 1 } }, as: Action.self)
        }
        XCTAssertNotNil(weakProbe, "the words did not keep the closure's context")
        TwoWordBits.moveOut(words, as: Action.self).run()
        XCTAssertEqual(runs, 1)
        XCTAssertNil(weakProbe, "the closure outlived its move out")
    }
}
