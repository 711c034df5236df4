import Foundation
import Untangle
import XCTest

// `Subscribers.Demand.max(-1)`, multiplying by a negative number and `request(.none)` stop the program with a
// precondition message (as Apple's Combine does); traps cannot be tested in-process, so they are not tested here.
final class DemandTests: XCTestCase {
    typealias Demand = Subscribers.Demand

    private let largest = Demand.max(Int.max)

    // MARK: Construction and properties

    func testNoneIsMaxZero() {
        XCTAssertEqual(Demand.none, .max(0))
        XCTAssertEqual(Demand.none.max, 0)
    }

    func testMaxPropertyIsTheCountOrNilForUnlimited() {
        XCTAssertEqual(Demand.max(7).max, 7)
        XCTAssertEqual(largest.max, Int.max)
        XCTAssertNil(Demand.unlimited.max)
    }

    func testDescription() {
        XCTAssertEqual(Demand.none.description, "max(0)")
        XCTAssertEqual(Demand.max(3).description, "max(3)")
        XCTAssertEqual(largest.description, "max(\(Int.max))")
        XCTAssertEqual(Demand.unlimited.description, "unlimited")
        XCTAssertEqual("\(Demand.unlimited)", "unlimited")
    }

    // MARK: Addition

    func testAddingDemands() {
        XCTAssertEqual(Demand.max(2) + .max(3), .max(5))
        XCTAssertEqual(Demand.none + .none, .none)
        XCTAssertEqual(Demand.max(2) + .unlimited, .unlimited)
        XCTAssertEqual(Demand.unlimited + .max(2), .unlimited)
        XCTAssertEqual(Demand.unlimited + .unlimited, .unlimited)
    }

    func testAdditionSaturatesToUnlimited() {
        XCTAssertEqual(largest + .max(1), .unlimited)
        XCTAssertEqual(largest + largest, .unlimited)
        XCTAssertEqual(largest + 1, .unlimited)
        XCTAssertEqual(largest + Int.max, .unlimited)
        XCTAssertEqual(Demand.max(Int.max - 1) + 1, largest)
    }

    func testAddingInts() {
        XCTAssertEqual(Demand.max(2) + 3, .max(5))
        XCTAssertEqual(Demand.none + 0, .none)
        XCTAssertEqual(Demand.unlimited + 5, .unlimited)
        XCTAssertEqual(Demand.unlimited + -5, .unlimited)
    }

    func testAddingANegativeIntSubtractsAndClampsAtZero() {
        XCTAssertEqual(Demand.max(5) + -2, .max(3))
        XCTAssertEqual(Demand.max(5) + -5, .none)
        XCTAssertEqual(Demand.max(5) + -6, .none)
        XCTAssertEqual(Demand.max(5) + Int.min, .none)
    }

    func testCompoundAddition() {
        var demand = Demand.max(1)
        demand += .max(2)
        XCTAssertEqual(demand, .max(3))
        demand += 4
        XCTAssertEqual(demand, .max(7))
        demand += -3
        XCTAssertEqual(demand, .max(4))
        demand += .unlimited
        XCTAssertEqual(demand, .unlimited)
        demand += -3
        XCTAssertEqual(demand, .unlimited)
        var big = largest
        big += 1
        XCTAssertEqual(big, .unlimited)
    }

    // MARK: Subtraction

    func testSubtractingDemands() {
        XCTAssertEqual(Demand.max(5) - .max(3), .max(2))
        XCTAssertEqual(Demand.max(5) - .max(5), .none)
        XCTAssertEqual(Demand.max(5) - .none, .max(5))
    }

    func testSubtractionClampsAtZero() {
        XCTAssertEqual(Demand.max(3) - .max(5), .none)
        XCTAssertEqual(Demand.none - .max(1), .none)
        XCTAssertEqual(Demand.max(3) - 5, .none)
        XCTAssertEqual(Demand.none - Int.max, .none)
    }

    func testUnlimitedMinusAnythingIsUnlimited() {
        XCTAssertEqual(Demand.unlimited - .max(5), .unlimited)
        XCTAssertEqual(Demand.unlimited - largest, .unlimited)
        XCTAssertEqual(Demand.unlimited - .unlimited, .unlimited)
        XCTAssertEqual(Demand.unlimited - 5, .unlimited)
        XCTAssertEqual(Demand.unlimited - Int.max, .unlimited)
        XCTAssertEqual(Demand.unlimited - -5, .unlimited)
    }

    func testFiniteMinusUnlimitedIsZero() {
        XCTAssertEqual(Demand.max(5) - .unlimited, .none)
        XCTAssertEqual(largest - .unlimited, .none)
        XCTAssertEqual(Demand.none - .unlimited, .none)
    }

    func testSubtractingANegativeIntAdds() {
        XCTAssertEqual(Demand.max(5) - -2, .max(7))
    }

    // Combine computes `demand - int` as an Int: a difference that overflows is `.none`, not `.unlimited`.
    func testSubtractingANegativeIntThatOverflowsIsNone() {
        XCTAssertEqual(largest - -1, .none)
        XCTAssertEqual(Demand.max(5) - Int.min, .none)
        var demand = largest
        demand -= -1
        XCTAssertEqual(demand, .none)
    }

    func testCompoundSubtraction() {
        var demand = Demand.max(10)
        demand -= .max(3)
        XCTAssertEqual(demand, .max(7))
        demand -= 2
        XCTAssertEqual(demand, .max(5))
        demand -= -1
        XCTAssertEqual(demand, .max(6))
        demand -= 100
        XCTAssertEqual(demand, .none)
        var unlimited = Demand.unlimited
        unlimited -= .unlimited
        XCTAssertEqual(unlimited, .unlimited)
        unlimited -= 1
        XCTAssertEqual(unlimited, .unlimited)
        var finite = Demand.max(3)
        finite -= .unlimited
        XCTAssertEqual(finite, .none)
    }

    // MARK: Multiplication

    func testMultiplication() {
        XCTAssertEqual(Demand.max(3) * 4, .max(12))
        XCTAssertEqual(Demand.max(3) * 0, .none)
        XCTAssertEqual(Demand.none * 5, .none)
        XCTAssertEqual(Demand.max(3) * 1, .max(3))
    }

    func testUnlimitedTimesAnythingIsUnlimited() {
        XCTAssertEqual(Demand.unlimited * 2, .unlimited)
        XCTAssertEqual(Demand.unlimited * 0, .unlimited)
    }

    func testMultiplicationSaturatesToUnlimited() {
        XCTAssertEqual(largest * 2, .unlimited)
        XCTAssertEqual(largest * Int.max, .unlimited)
        XCTAssertEqual(Demand.max(Int.max / 2 + 1) * 2, .unlimited)
        XCTAssertEqual(Demand.max(Int.max / 2) * 2, .max(Int.max - 1))
    }

    func testCompoundMultiplication() {
        var demand = Demand.max(3)
        demand *= 5
        XCTAssertEqual(demand, .max(15))
        demand *= Int.max
        XCTAssertEqual(demand, .unlimited)
    }

    // MARK: Comparison between demands

    func testOrderingOfDemands() {
        XCTAssertLessThan(Demand.none, .max(1))
        XCTAssertLessThan(Demand.max(1), .max(2))
        XCTAssertLessThan(largest, .unlimited)
        XCTAssertLessThanOrEqual(Demand.max(2), .max(2))
        XCTAssertGreaterThan(Demand.unlimited, .max(2))
        XCTAssertGreaterThanOrEqual(Demand.unlimited, .unlimited)
        XCTAssertFalse(Demand.unlimited < .unlimited)
        XCTAssertEqual([Demand.unlimited, .max(3), .none, .max(1)].sorted(), [.none, .max(1), .max(3), .unlimited])
        XCTAssertEqual(Swift.max(Demand.max(3), .unlimited), .unlimited)
    }

    func testEquality() {
        XCTAssertEqual(Demand.max(4), .max(4))
        XCTAssertNotEqual(Demand.max(4), .max(5))
        XCTAssertNotEqual(largest, .unlimited)
        XCTAssertEqual(Demand.unlimited, .unlimited)
    }

    // MARK: Comparison with Int, both ways

    func testDemandComparedWithNonNegativeInt() {
        let three = Demand.max(3)
        XCTAssertTrue(three == 3)
        XCTAssertFalse(three != 3)
        XCTAssertTrue(three != 4)
        XCTAssertTrue(three > 2)
        XCTAssertFalse(three > 3)
        XCTAssertTrue(three >= 3)
        XCTAssertFalse(three >= 4)
        XCTAssertTrue(three < 4)
        XCTAssertFalse(three < 3)
        XCTAssertTrue(three <= 3)
        XCTAssertFalse(three <= 2)
        XCTAssertTrue(Demand.none == 0)
        XCTAssertFalse(Demand.none > 0)
    }

    func testIntComparedWithDemand() {
        let three = Demand.max(3)
        XCTAssertTrue(3 == three)
        XCTAssertFalse(3 != three)
        XCTAssertTrue(4 != three)
        XCTAssertTrue(4 > three)
        XCTAssertFalse(3 > three)
        XCTAssertTrue(3 >= three)
        XCTAssertFalse(2 >= three)
        XCTAssertTrue(2 < three)
        XCTAssertFalse(3 < three)
        XCTAssertTrue(3 <= three)
        XCTAssertFalse(4 <= three)
    }

    func testNegativeIntIsBelowEveryDemand() {
        for demand in [Demand.none, .max(1), largest, .unlimited] {
            XCTAssertTrue(demand > -1, "\(demand) > -1")
            XCTAssertTrue(demand >= -1, "\(demand) >= -1")
            XCTAssertFalse(demand < -1, "\(demand) < -1")
            XCTAssertFalse(demand <= -1, "\(demand) <= -1")
            XCTAssertFalse(demand == -1, "\(demand) == -1")
            XCTAssertTrue(demand != -1, "\(demand) != -1")
            XCTAssertTrue(Int.min < demand, "Int.min < \(demand)")
            XCTAssertTrue(-1 <= demand, "-1 <= \(demand)")
            XCTAssertFalse(-1 > demand, "-1 > \(demand)")
            XCTAssertFalse(-1 >= demand, "-1 >= \(demand)")
            XCTAssertFalse(-1 == demand, "-1 == \(demand)")
            XCTAssertTrue(-1 != demand, "-1 != \(demand)")
        }
    }

    func testUnlimitedIsAboveEveryIntAndEqualToNone() {
        for int in [0, 1, Int.max] {
            XCTAssertTrue(Demand.unlimited > int, "unlimited > \(int)")
            XCTAssertTrue(Demand.unlimited >= int, "unlimited >= \(int)")
            XCTAssertFalse(Demand.unlimited < int, "unlimited < \(int)")
            XCTAssertFalse(Demand.unlimited <= int, "unlimited <= \(int)")
            XCTAssertFalse(Demand.unlimited == int, "unlimited == \(int)")
            XCTAssertTrue(Demand.unlimited != int, "unlimited != \(int)")
            XCTAssertTrue(int < Demand.unlimited, "\(int) < unlimited")
            XCTAssertTrue(int <= Demand.unlimited, "\(int) <= unlimited")
            XCTAssertFalse(int > Demand.unlimited, "\(int) > unlimited")
            XCTAssertFalse(int >= Demand.unlimited, "\(int) >= unlimited")
            XCTAssertFalse(int == Demand.unlimited, "\(int) == unlimited")
            XCTAssertTrue(int != Demand.unlimited, "\(int) != unlimited")
        }
    }

    func testLargestFiniteDemandEqualsIntMax() {
        XCTAssertTrue(largest == Int.max)
        XCTAssertTrue(Int.max == largest)
        XCTAssertTrue(largest >= Int.max)
        XCTAssertFalse(largest > Int.max)
    }

    // MARK: Codable and Hashable

    func testCodableRoundTrip() throws {
        let demands: [Demand] = [.none, .max(1), .max(42), largest, .unlimited]
        let data = try JSONEncoder().encode(demands)
        XCTAssertEqual(try JSONDecoder().decode([Demand].self, from: data), demands)
    }

    func testEncodesAsOneUnsignedInteger() throws {
        let data = try JSONEncoder().encode([Demand.max(42)])
        XCTAssertEqual(String(decoding: data, as: UTF8.self), "[42]")
    }

    // As in Combine, a count larger than any finite demand decodes as `.unlimited`.
    func testDecodingACountAboveTheLargestFiniteDemandGivesUnlimited() throws {
        let data = Data("[\(UInt(Int.max) + 2), \(UInt.max)]".utf8)
        XCTAssertEqual(try JSONDecoder().decode([Demand].self, from: data), [.unlimited, .unlimited])
    }

    func testDecodingANegativeCountThrows() {
        XCTAssertThrowsError(try JSONDecoder().decode([Demand].self, from: Data("[-1]".utf8)))
    }

    func testUnlimitedEncodesAsIntMaxPlusOne() throws {
        let data = try JSONEncoder().encode([Demand.unlimited])
        XCTAssertEqual(String(decoding: data, as: UTF8.self), "[\(UInt(Int.max) + 1)]")
    }

    func testHashable() {
        let set: Set<Demand> = [.max(1), .max(1), .unlimited, .unlimited, .none, .max(0)]
        XCTAssertEqual(set, [.none, .max(1), .unlimited])
        XCTAssertEqual(Demand.max(5).hashValue, (Demand.max(2) + 3).hashValue)
        XCTAssertEqual(Demand.unlimited.hashValue, (largest + 1).hashValue)
    }
}
