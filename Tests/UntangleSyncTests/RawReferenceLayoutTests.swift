import XCTest

@testable import UntangleSync

/// `RawReference`'s layout helpers (the leading-reference load, the borrowed walk over an array, the class checks
/// and casts) and `RetainedReference`: each against what Swift itself says, in every build configuration.
final class RawReferenceLayoutTests: XCTestCase {
    final class Probe {
        let name: String
        var visits = 0

        init(_ name: String) {
            self.name = name
        }
    }

    /// A value whose first stored property is a reference, as the emitter's state machine is (two words: never a
    /// class reference).
    struct Leading {
        var first: Probe
        var count: Int
    }

    protocol Named {
        var name: String { get }
    }

    final class NamedClass: Named {
        let name = "class"
    }

    struct NamedStruct: Named {
        let name = "struct"
    }

    func testBorrowLeadingObjectReadsTheFirstStoredReference() {
        let probe = Probe("leading")
        var value = Leading(first: probe, count: 7)
        let seen = withUnsafeMutablePointer(to: &value) { address in
            RawReference.borrowLeadingObject(of: address) { $0 as? Probe }
        }
        XCTAssertTrue(seen === probe, "the object at offset 0 is the value's first stored reference")
        XCTAssertEqual(value.count, 7)
    }

    func testForEachBorrowedVisitsEveryElementInOrderAndKeepsTheArrayIntact() {
        let probes = (0..<5).map { Probe("p\($0)") }
        var order: [String] = []
        RawReference.forEachBorrowed(in: probes) { probe in
            probe.visits += 1
            order.append(probe.name)
        }
        XCTAssertEqual(order, ["p0", "p1", "p2", "p3", "p4"])
        XCTAssertEqual(probes.map(\.visits), [1, 1, 1, 1, 1])
        var none = 0
        RawReference.forEachBorrowed(in: [Probe]()) { _ in none += 1 }
        XCTAssertEqual(none, 0, "an empty array calls nothing")
    }

    func testForEachBorrowedDoesNotChangeReferenceCounts() {
        weak var watched: Probe?
        do {
            let probes = [Probe("only")]
            watched = probes[0]
            RawReference.forEachBorrowed(in: probes) { $0.visits += 1 }
            XCTAssertEqual(probes[0].visits, 1)
        }
        XCTAssertNil(watched, "the element went with the array: nothing was left retained")
    }

    // A one-word struct (`Int`) is "may be" in unspecialized (debug) code, where `_canBeClass` answers "maybe":
    // the emitter's sink check compares the metatypes after it, so only the size part is asserted for such types.
    func testMayBeClassReferenceIsFalseForEveryTypeThatIsNotOneReference() {
        XCTAssertTrue(RawReference.mayBeClassReference(Probe.self))
        XCTAssertTrue(RawReference.mayBeClassReference(AnyObject.self))
        XCTAssertFalse(RawReference.mayBeClassReference(Leading.self), "two words")
        XCTAssertFalse(RawReference.mayBeClassReference(NamedStruct.self))
    }

    func testObjectAndInstanceRoundTripAClassBehindAnUnconstrainedGeneric() {
        func erase<T: Named>(_ value: T) -> (AnyObject, any Named.Type)? {
            guard T.self is AnyClass else { return nil }
            return (RawReference.object(value), T.self)
        }
        func name<T: Named>(of object: AnyObject, as type: T.Type) -> String {
            RawReference.instance(object, as: type).name
        }
        let named = NamedClass()
        let erased = erase(named)
        XCTAssertTrue(erased?.0 === named, "the object is the instance itself, not a box")
        XCTAssertNil(erase(NamedStruct()), "a struct is not a class: the caller boxes it")
        if let (object, type) = erased {
            XCTAssertEqual(name(of: object, as: type), "class")
        }
    }

    func testRetainedReferenceKeepsItsObjectUntilReleased() {
        weak var watched: Probe?
        var reference: RetainedReference<Probe>?
        do {
            let probe = Probe("kept")
            watched = probe
            reference = RetainedReference(retaining: probe)
        }
        XCTAssertNotNil(watched, "the retained reference keeps the object")
        XCTAssertEqual(reference?.withBorrowed { $0.name }, "kept")
        XCTAssertEqual(MemoryLayout<RetainedReference<Probe>?>.size, MemoryLayout<AnyObject>.size, "one word")
        reference?.release()
        reference = nil
        XCTAssertNil(watched, "release gave the one retain back")
    }
}
