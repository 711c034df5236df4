import UntangleSync
import XCTest

@available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *)
final class AtomicFlagTests: XCTestCase {
    func testSetReportsWhetherThisCallChangedTheFlag() {
        let flag = AtomicFlag()
        XCTAssertFalse(flag.isSet)
        XCTAssertTrue(flag.set())
        XCTAssertFalse(flag.set())
        XCTAssertTrue(flag.isSet)
        XCTAssertTrue(flag.clear())
        XCTAssertFalse(flag.clear())
        XCTAssertFalse(flag.isSet)
    }

    func testRunOnceRunsTheBodyOnlyForTheCallThatSetsTheFlag() {
        let flag = AtomicFlag()
        var runs = 0
        XCTAssertTrue(flag.runOnce { runs += 1 })
        XCTAssertFalse(flag.runOnce { runs += 1 })
        XCTAssertEqual(runs, 1)
    }

    func testRunOnceRethrowsAndStaysSet() {
        struct Boom: Error {}
        let flag = AtomicFlag()
        XCTAssertThrowsError(try flag.runOnce { throw Boom() })
        XCTAssertTrue(flag.isSet)
    }
}

@available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *)
final class AtomicFlagConcurrencyTests: XCTestCase {
    func testExactlyOneOfManyRacingSetCallsWins() {
        let flags = (0..<2_000).map { _ in AtomicFlag() }
        let winners = AtomicCounter()
        runConcurrently(threads: 8) { _ in
            for flag in flags where flag.set() {
                winners.increment()
            }
        }
        XCTAssertEqual(winners.load(), flags.count)
    }

    func testRunOnceBodyRunsOnceAcrossThreads() {
        let flag = AtomicFlag()
        let runs = AtomicCounter()
        runConcurrently(threads: 8) { _ in
            for _ in 0..<1_000 { flag.runOnce { runs.increment() } }
        }
        XCTAssertEqual(runs.load(), 1)
    }
}
