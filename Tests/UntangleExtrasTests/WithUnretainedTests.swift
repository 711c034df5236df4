import Foundation
import Untangle
import UntangleExtras
import UntangleSync
import XCTest

final class WithUnretainedTests: XCTestCase {
    final class Owner: @unchecked Sendable {
        let name: String
        init(_ name: String) { self.name = name }
    }

    func testPairsValuesWithTheOwnerWithoutRetainingIt() {
        let upstream = ManualPublisher<Int, Never>()
        var owner: Owner? = Owner("o")
        weak let weakOwner = owner
        // The recorder keeps strings, not the pairs: it must not be what retains the owner.
        let recorder = Recorder<String, Never>()
        upstream.withUnretained(owner!).map { "\($0.0.name)\($0.1)" }.subscribe(recorder)
        upstream.send(1)
        owner = nil
        XCTAssertNil(weakOwner, "the operator must not retain its owner")
        upstream.send(2)
        XCTAssertEqual(
            recorder.events, [.subscription("WithUnretained"), .value("o1"), .completion(.finished)],
            "a value after the owner is gone finishes the stream")
        XCTAssertEqual(upstream.history, [.request(.unlimited), .cancel])
    }

    func testUpstreamCompletionPassesThrough() {
        let owner = Owner("o")
        let recorder = Recorder<(Owner, Int), TestError>()
        Fail<Int, TestError>(error: TestError(3)).withUnretained(owner).subscribe(recorder)
        guard case .completion(.failure(TestError(3))) = recorder.events.last else {
            return XCTFail("\(recorder.events)")
        }
    }

    func testDemandPassesThrough() {
        let owner = Owner("o")
        let upstream = ManualPublisher<Int, Never>()
        let recorder = Recorder<(Owner, Int), Never>(initialDemand: .max(2))
        upstream.withUnretained(owner).subscribe(recorder)
        XCTAssertEqual(upstream.history, [.request(.max(2))])
        recorder.cancel()
        XCTAssertEqual(upstream.history, [.request(.max(2)), .cancel])
    }
}
