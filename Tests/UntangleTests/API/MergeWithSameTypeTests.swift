import Untangle
import XCTest

// `merge(with:)` with a publisher of the receiver's own type: Combine declares `merge(with: Self) ->
// Publishers.MergeMany<Self>` beside the generic `merge(with:) -> Publishers.Merge<Self, P>`, and the non-generic one
// wins, so the result type (which a caller can name, store or extend with `merge(with:)`) is `MergeMany`. The
// behaviour (interleaving, demand, first failure cancels the other) is MergeTests': its same-type cases
// (`a.merge(with: b)` of two PassthroughSubjects or two ManualPublishers) run through this overload.
final class MergeWithSameTypeTests: XCTestCase {
    /// Regression: `a.merge(with: b)` of two publishers of one type returned `Publishers.Merge<A, A>`, which a program
    /// written for Combine (`let merged: Publishers.MergeMany<A> = a.merge(with: b)`) does not compile against.
    func testSameTypeMergeIsAMergeMany() {
        let a = PassthroughSubject<Int, TestError>()
        let b = PassthroughSubject<Int, TestError>()
        let merged: Publishers.MergeMany<PassthroughSubject<Int, TestError>> = a.merge(with: b)
        XCTAssertEqual(merged.publishers.count, 2)
        XCTAssertTrue(merged.publishers[0] === a)
        XCTAssertTrue(merged.publishers[1] === b)
    }

    func testDifferentTypesStillMergeIntoAMerge() {
        let a = PassthroughSubject<Int, Never>()
        let merged: Publishers.Merge<PassthroughSubject<Int, Never>, Just<Int>> = a.merge(with: Just(1))
        XCTAssertTrue(merged.a === a)
        XCTAssertEqual(merged.b, Just(1))
    }

    func testChainedSameTypeMergesStayOneMergeMany() {
        let publishers = (1...4).map { Just($0) }
        let merged: Publishers.MergeMany<Just<Int>> = publishers[0].merge(with: publishers[1])
            .merge(with: publishers[2]).merge(with: publishers[3])
        XCTAssertEqual(merged, Publishers.MergeMany(publishers))
        let recorder = Recorder<Int, Never>()
        merged.subscribe(recorder)
        XCTAssertEqual(
            recorder.events,
            [.subscription("Merge"), .value(1), .value(2), .value(3), .value(4), .completion(.finished)])
    }
}
