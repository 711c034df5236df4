import Dispatch
import Untangle
import UntangleExtras
import UntangleSync
import XCTest

/// The README's example, compiled and checked, so the front page never shows code that does not work.
final class ReadmeExampleTests: XCTestCase {
    func testTheReadmeExampleWorksAsWritten() {
        let received = LockedBox<[Double]>([])
        // --- README example (with the print replaced by a recording) ---
        let bag = CancelBag()
        let prices = CurrentValueSubject<Double, Never>(100)
        prices.sink { price in received.withLock { $0.append(price) } }.store(in: bag)
        DispatchQueue.concurrentPerform(iterations: 8) { prices.send(Double($0)) }
        // --- end ---
        let values = received.withLock { $0 }
        XCTAssertEqual(values.first, 100)
        XCTAssertEqual(values.dropFirst().sorted(), (0..<8).map(Double.init), "serialized, nothing lost")
        bag.cancel()
    }
}
