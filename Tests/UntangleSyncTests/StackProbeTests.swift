import XCTest

@testable import UntangleSync

/// `StackProbe`: its reading moves down the stack as calls nest.
final class StackProbeTests: XCTestCase {
    @inline(never)
    func deeper(_ levels: Int) -> UInt {
        if levels == 0 { return StackProbe.approximateStackPointer() }
        let result = deeper(levels - 1)
        return result == 0 ? 1 : result
    }

    func testStackProbeSeesTheStackGrow() {
        let here = StackProbe.approximateStackPointer()
        let deep = deeper(50)
        XCTAssertLessThan(deep, here, "fifty frames deeper is further down the stack")
    }
}
