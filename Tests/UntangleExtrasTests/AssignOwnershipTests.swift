import Foundation
import Untangle
import UntangleExtras
import UntangleSync
import XCTest

final class AssignOwnershipTests: XCTestCase {
    final class Target: @unchecked Sendable {
        var value = 0
    }

    func testStrongOwnershipKeepsTheObjectAlive() {
        let subject = PassthroughSubject<Int, Never>()
        weak var weakTarget: Target?
        var cancellable: AnyCancellable?
        do {
            let target = Target()
            weakTarget = target
            cancellable = subject.assign(to: \.value, on: target, ownership: .strong)
        }
        XCTAssertNotNil(weakTarget)
        subject.send(3)
        XCTAssertEqual(weakTarget?.value, 3)
        cancellable?.cancel()
        cancellable = nil
        XCTAssertNil(weakTarget)
    }

    func testWeakOwnershipDoesNotRetainAndIgnoresValuesAfterTheObjectIsGone() {
        let subject = PassthroughSubject<Int, Never>()
        var target: Target? = Target()
        weak let weakTarget = target
        let cancellable = subject.assign(to: \.value, on: target!, ownership: .weak)
        subject.send(5)
        XCTAssertEqual(target?.value, 5)
        target = nil
        XCTAssertNil(weakTarget)
        subject.send(6)  // ignored, no crash
        cancellable.cancel()
    }

    func testUnownedOwnershipDoesNotRetain() {
        let subject = PassthroughSubject<Int, Never>()
        var target: Target? = Target()
        weak let weakTarget = target
        let cancellable = subject.assign(to: \.value, on: target!, ownership: .unowned)
        subject.send(7)
        XCTAssertEqual(target?.value, 7)
        target = nil
        XCTAssertNil(weakTarget)
        cancellable.cancel()
    }
}
