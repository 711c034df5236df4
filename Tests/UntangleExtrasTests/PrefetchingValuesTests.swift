import Untangle
import UntangleExtras
import UntangleSync
import XCTest

final class PrefetchingValuesTests: XCTestCase {
    /// Records every demand the upstream is asked for, from whichever thread asks.
    private final class DemandLog: @unchecked Sendable {
        private let requests = LockedBox([Subscribers.Demand]())
        func record(_ demand: Subscribers.Demand) { requests.withCriticalSection { $0.append(demand) } }
        var all: [Subscribers.Demand] { requests.withCriticalSection { $0 } }
    }

    func testEveryValueArrivesInOrderAndTheUpstreamIsAskedForTheWindowFirst() async {
        let log = DemandLog()
        let source = (0..<100).publisher.handleEvents(receiveRequest: { log.record($0) })
        var received: [Int] = []
        for await value in source.values(prefetch: 8) {
            received.append(value)
        }
        XCTAssertEqual(received, Array(0..<100))
        let requests = log.all
        XCTAssertEqual(requests.first, .max(8))
        // Never more than the window asked for at once, and enough asked in total for every value.
        XCTAssertTrue(requests.allSatisfy { $0 <= .max(8) && $0 > .none }, "requests: \(requests)")
        XCTAssertGreaterThanOrEqual(requests.compactMap(\.max).reduce(0, +), 100)
    }

    func testAWindowOfOneAsksForOneValuePerIteration() async {
        let log = DemandLog()
        let source = [1, 2, 3].publisher.handleEvents(receiveRequest: { log.record($0) })
        var received: [Int] = []
        for await value in source.values(prefetch: 1) {
            received.append(value)
        }
        XCTAssertEqual(received, [1, 2, 3])
        // One request per next() that found nothing kept; the sequence finishes right after its last value, so the
        // fourth next() finds the end without asking.
        XCTAssertEqual(log.all, [.max(1), .max(1), .max(1)])
    }

    func testTheFailureIsThrownAfterTheValuesBeforeIt() async {
        let source = [1, 2, 3].publisher.setFailureType(to: TestError.self).append(Fail(error: TestError(7)))
        var received: [Int] = []
        do {
            for try await value in source.values(prefetch: 16) {
                received.append(value)
            }
            XCTFail("the failure was not thrown")
        } catch {
            XCTAssertEqual(error as? TestError, TestError(7))
        }
        XCTAssertEqual(received, [1, 2, 3])
    }

    /// Reports its own release, so a test can see which values are still alive.
    private final class Element: @unchecked Sendable {
        let id: Int
        private let released: LockedBox<[Int]>
        init(_ id: Int, released: LockedBox<[Int]>) {
            self.id = id
            self.released = released
        }
        deinit { released.withCriticalSection { $0.append(id) } }
    }

    func testLeavingTheLoopCancelsTheSubscriptionAndReleasesTheKeptValues() async {
        let log = DemandLog()
        let cancelled = LockedBox(false)
        let created = LockedBox([Int]())
        let released = LockedBox([Int]())
        // handleEvents first, so that map streams (on a sequence publisher it would map every element at once).
        let source = (0..<10).publisher
            .handleEvents(
                receiveCancel: { cancelled.withCriticalSection { $0 = true } },
                receiveRequest: { log.record($0) }
            )
            .map { id -> Element in
                created.withCriticalSection { $0.append(id) }
                return Element(id, released: released)
            }
        do {
            var iterator = source.values(prefetch: 4).makeAsyncIterator()
            let first = await iterator.next()
            XCTAssertEqual(first?.id, 0)
            // The window asked for four at once: 1, 2 and 3 wait in the iterator.
            XCTAssertEqual(log.all, [.max(4)])
            XCTAssertEqual(created.withCriticalSection { $0 }, [0, 1, 2, 3])
            let second = await iterator.next()
            XCTAssertEqual(second?.id, 1)
        }
        // The iterator is gone: the subscription is cancelled and every value it kept is released.
        XCTAssertTrue(cancelled.withCriticalSection { $0 })
        XCTAssertEqual(Set(released.withCriticalSection { $0 }), Set(created.withCriticalSection { $0 }))
    }
}
