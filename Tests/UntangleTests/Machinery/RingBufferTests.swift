import Untangle
import XCTest

final class RingBufferTests: XCTestCase {
    private func drain<Element>(_ buffer: inout RingBuffer<Element>) -> [Element] {
        var elements: [Element] = []
        while let element = buffer.popFirst() {
            elements.append(element)
        }
        return elements
    }

    func testKeepsFirstInFirstOutAcrossWrapAroundAndGrowth() {
        var buffer = RingBuffer<Int>()
        XCTAssertTrue(buffer.isEmpty)
        for value in 0..<3 { buffer.append(value) }
        XCTAssertEqual(buffer.popFirst(), 0)
        XCTAssertEqual(buffer.popFirst(), 1)
        // The start is now in the middle of the first storage; these wrap around, then force two growths.
        for value in 3..<20 { buffer.append(value) }
        XCTAssertEqual(buffer.count, 18)
        XCTAssertEqual(drain(&buffer), Array(2..<20))
        XCTAssertTrue(buffer.isEmpty)
        XCTAssertNil(buffer.popFirst())
    }

    func testCopiesShareStorageUntilOneIsMutated() {
        var original = RingBuffer<Int>()
        for value in 0..<6 { original.append(value) }
        _ = original.popFirst()
        var copy = original
        copy.append(6)
        XCTAssertEqual(original.popFirst(), 1)
        XCTAssertEqual(drain(&original), [2, 3, 4, 5])
        XCTAssertEqual(drain(&copy), [1, 2, 3, 4, 5, 6])
    }

    func testTruncateReturnsTheRemovedTailInOrder() {
        var buffer = RingBuffer<Int>()
        for value in 0..<4 { buffer.append(value) }
        _ = buffer.popFirst()
        for value in 4..<6 { buffer.append(value) }
        XCTAssertEqual(buffer.truncate(keepingFirst: 2), [3, 4, 5])
        XCTAssertEqual(buffer.truncate(keepingFirst: 5), [])
        XCTAssertEqual(drain(&buffer), [1, 2])
    }

    func testReplaceLastHandsBackTheReplacedElement() {
        var buffer = RingBuffer<String>()
        buffer.append("a")
        buffer.append("b")
        XCTAssertEqual(buffer.replaceLast(with: "c"), "b")
        XCTAssertEqual(drain(&buffer), ["a", "c"])
    }

    func testTakeAllLeavesTheBufferEmpty() {
        var buffer = RingBuffer<Int>()
        for value in 0..<5 { buffer.append(value) }
        var taken = buffer.takeAll()
        XCTAssertTrue(buffer.isEmpty)
        XCTAssertEqual(buffer.count, 0)
        buffer.append(9)
        XCTAssertEqual(drain(&taken), [0, 1, 2, 3, 4])
        XCTAssertEqual(drain(&buffer), [9])
    }

    func testAnUnsharedCopyHasItsOwnStorage() {
        var original = RingBuffer<Int>()
        for value in 0..<6 { original.append(value) }
        _ = original.popFirst()
        var copy = original.unsharedCopy()
        XCTAssertEqual(original.popFirst(), 1)
        copy.append(6)
        XCTAssertEqual(drain(&copy), [1, 2, 3, 4, 5, 6])
        XCTAssertEqual(drain(&original), [2, 3, 4, 5])
        XCTAssertTrue(RingBuffer<Int>().unsharedCopy().isEmpty)
    }

    /// Every element is released exactly once, whether popped, truncated, replaced, copied or dropped with the
    /// buffer (a double release would crash, a missed one shows as a live object).
    func testReleasesEveryElementOnce() {
        final class Element {}
        var weakElements: [() -> Element?] = []
        do {
            var buffer = RingBuffer<Element>()
            for _ in 0..<10 {
                let element = Element()
                weakElements.append { [weak element] in element }
                buffer.append(element)
            }
            _ = buffer.popFirst()
            _ = buffer.truncate(keepingFirst: 6)
            let replacement = Element()
            weakElements.append { [weak replacement] in replacement }
            _ = buffer.replaceLast(with: replacement)
            var copy = buffer
            copy.append(Element())
            _ = copy.popFirst()
        }
        XCTAssertTrue(weakElements.allSatisfy { $0() == nil }, "an element outlived its buffer")
    }
}
