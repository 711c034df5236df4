import UntangleSync
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

    /// A buffer of `count` (at most 8) elements `0..<count` in an 8-slot storage whose front sits `offset` slots
    /// into it (so that, with an offset near the end, the elements wrap around).
    private func buffer(count: Int, startingAt offset: Int) -> RingBuffer<Int> {
        var buffer = RingBuffer<Int>()
        for value in 0..<8 { buffer.append(-1 - value) }
        for _ in 0..<8 { _ = buffer.popFirst() }
        for value in 0..<offset {
            buffer.append(-1 - value)
            _ = buffer.popFirst()
        }
        for value in 0..<count { buffer.append(value) }
        return buffer
    }

    /// `remove(at:)` at every index, with the front at every slot of an 8-slot storage (wrapped or not): the
    /// element at the index comes back and the others stay in order, whichever side moved.
    func testRemoveAtEveryIndexKeepsTheOthersInOrderWrappedOrNot() {
        for count in 1...8 {
            for offset in 0..<8 {
                for index in 0..<count {
                    var ring = buffer(count: count, startingAt: offset)
                    var expected = Array(0..<count)
                    XCTAssertEqual(ring.remove(at: index), expected.remove(at: index), "\(count) \(offset) \(index)")
                    XCTAssertEqual(ring.count, count - 1)
                    // Appending after the removal checks that the front and the count were left consistent.
                    ring.append(100)
                    expected.append(100)
                    XCTAssertEqual(drain(&ring), expected, "count \(count), front at \(offset), index \(index)")
                }
            }
        }
    }

    func testRemoveAtLeavesASharedCopyUntouched() {
        var original = buffer(count: 5, startingAt: 3)
        let copy = original
        XCTAssertEqual(original.remove(at: 1), 1)
        XCTAssertEqual(original.remove(at: 3), 4)
        var copyToDrain = copy
        XCTAssertEqual(drain(&copyToDrain), [0, 1, 2, 3, 4])
        XCTAssertEqual(drain(&original), [0, 2, 3])
    }

    /// Removing from either side moves the other elements, never copies them: each is released exactly once.
    func testRemoveAtReleasesEachElementOnce() {
        final class Element {}
        for index in [0, 1, 4, 6, 7] {
            var weakElements: [() -> Element?] = []
            do {
                var ring = RingBuffer<Element>()
                for _ in 0..<5 { ring.append(Element()) }
                for _ in 0..<5 { _ = ring.popFirst() }
                for _ in 0..<8 {
                    let element = Element()
                    weakElements.append { [weak element] in element }
                    ring.append(element)
                }
                let removed = ring.remove(at: index)
                XCTAssertTrue(removed === weakElements[index](), "index \(index)")
                XCTAssertEqual(ring.count, 7)
            }
            XCTAssertTrue(weakElements.allSatisfy { $0() == nil }, "an element outlived its buffer (index \(index))")
        }
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
