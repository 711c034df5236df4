import Untangle
import UntangleExtras
import XCTest

final class ResourcesTests: XCTestCase {
    func testCountsLiveLibraryObjectsAndReturnsToBaselineAfterCancel() throws {
        guard Resources.isCounting else { throw XCTSkip("release build: Resources does not count") }
        let before = Resources.total
        let subject = PassthroughSubject<Int, Never>()
        var cancellable: AnyCancellable? = subject.map { $0 * 2 }.filter { $0 > 0 }.sink { _ in }
        XCTAssertGreaterThan(Resources.total, before, "the subject and the subscription are counted")
        subject.send(1)
        cancellable = nil
        _ = cancellable
        withExtendedLifetime(subject) {}
        XCTAssertTrue(Resources.waitForTotal(atMost: before + 1), "only the subject itself is still alive")
    }

    func testALeakedCycleStaysCounted() throws {
        guard Resources.isCounting else { throw XCTSkip("release build: Resources does not count") }
        let before = Resources.total
        // A subscriber that keeps its subscription and is never cancelled: a cycle, in Combine as here.
        final class Holder: Subscriber {
            var subscription: Subscription?
            func receive(subscription: Subscription) { self.subscription = subscription }
            func receive(_ input: Int) -> Subscribers.Demand { .none }
            func receive(completion: Subscribers.Completion<Never>) {}
        }
        var holder: Holder? = Holder()
        PassthroughSubject<Int, Never>().merge(with: Empty(completeImmediately: false)).subscribe(holder!)
        weak let weakHolder = holder
        holder = nil
        XCTAssertNotNil(weakHolder, "the cycle keeps it alive")
        XCTAssertGreaterThan(Resources.total, before, "and the counter shows it")
        weakHolder?.subscription?.cancel()
        XCTAssertTrue(Resources.waitForTotal(atMost: before), "cancel breaks the cycle and everything is released")
    }
}
