import Untangle
import UntangleSync
import XCTest

final class CombineIdentifierTests: XCTestCase {
    func testFreshIdentifiersAreUnique() {
        let identifiers = (0..<10_000).map { _ in CombineIdentifier() }
        XCTAssertEqual(Set(identifiers).count, identifiers.count)
    }

    func testObjectIdentifierIsStableAndDistinct() {
        let a = Token()
        let b = Token()
        XCTAssertEqual(CombineIdentifier(a), CombineIdentifier(a))
        XCTAssertNotEqual(CombineIdentifier(a), CombineIdentifier(b))
    }

    func testFreshIdentifiersNeverEqualObjectIdentifiers() {
        let objects = (0..<1000).map { _ in Token() }
        let objectIDs = Set(objects.map { CombineIdentifier($0) })
        let fresh = Set((0..<1000).map { _ in CombineIdentifier() })
        XCTAssertTrue(objectIDs.isDisjoint(with: fresh))
    }

    func testClassesGetTheirIdentityAsCombineIdentifier() {
        let recorder = Recorder<Int, Never>()
        XCTAssertEqual(recorder.combineIdentifier, CombineIdentifier(recorder))
        XCTAssertNotEqual(recorder.combineIdentifier, Recorder<Int, Never>().combineIdentifier)
    }

    func testDescriptionIsHexadecimal() {
        for identifier in [CombineIdentifier(), CombineIdentifier(Token())] {
            let description = identifier.description
            XCTAssertTrue(description.hasPrefix("0x"), description)
            XCTAssertNotNil(UInt64(description.dropFirst(2), radix: 16), description)
        }
        let a = CombineIdentifier()
        XCTAssertEqual(a.description, a.description)
        XCTAssertNotEqual(a.description, CombineIdentifier().description)
    }
}

final class CombineIdentifierConcurrencyTests: XCTestCase {
    func testIdentifiersCreatedOnEightThreadsAreUnique() {
        let all = LockedBox<[CombineIdentifier]>([])
        runConcurrently(threads: 8) { _ in
            let mine = (0..<2_000).map { _ in CombineIdentifier() }
            all.withLock { $0.append(contentsOf: mine) }
        }
        let identifiers = all.withLock { $0 }
        XCTAssertEqual(identifiers.count, 16_000)
        XCTAssertEqual(Set(identifiers).count, 16_000)
    }
}
