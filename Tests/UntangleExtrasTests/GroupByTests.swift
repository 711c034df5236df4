import Foundation
import Untangle
import UntangleExtras
import UntangleTesting
import XCTest

final class GroupByTests: XCTestCase {
    typealias Group = GroupedPublisher<Int, Int, TestError>

    func testValuesAreSplitByKeyAndGroupsBufferUntilSubscribed() {
        let source = ManualPublisher<Int, TestError>(recordsSubscriptions: true)
        var groups: [Group] = []
        let outer = Recorder<Group, TestError>(onValue: { _, group in
            groups.append(group); return .none
        })
        source.groupBy { $0 % 2 }.subscribe(outer)
        XCTAssertEqual(source.history, [.subscribed, .request(.unlimited)])
        source.send(1)
        source.send(2)
        source.send(3)
        XCTAssertEqual(groups.map(\.key), [1, 0])
        let odd = Recorder<Int, TestError>()
        groups[0].subscribe(odd)
        let even = Recorder<Int, TestError>(initialDemand: nil)
        groups[1].subscribe(even)
        source.send(4)
        source.finish()
        XCTAssertEqual(odd.events, [.subscription("GroupBy.Group"), .value(1), .value(3), .completion(.finished)])
        XCTAssertEqual(even.events, [.subscription("GroupBy.Group")], "values and completion wait for demand")
        even.request(.max(1))
        XCTAssertEqual(even.events, [.subscription("GroupBy.Group"), .value(2)])
        even.request(.max(5))
        XCTAssertEqual(even.events, [.subscription("GroupBy.Group"), .value(2), .value(4), .completion(.finished)])
        XCTAssertEqual(outer.events.count, 4)
        XCTAssertEqual(outer.events.last.map { if case .completion(.finished) = $0 { true } else { false } }, true)
    }

    func testOuterDemandCountsGroupsAndASecondSubscriberFinishes() {
        let source = ManualPublisher<String, Never>(recordsSubscriptions: true)
        var groups: [GroupedPublisher<Character, String, Never>] = []
        let outer = Recorder<GroupedPublisher<Character, String, Never>, Never>(
            initialDemand: .max(1),
            onValue: { _, group in
                groups.append(group); return .none
            })
        source.groupBy { $0.first! }.subscribe(outer)
        source.send("apple")
        source.send("banana")
        XCTAssertEqual(groups.map(\.key), ["a"])
        outer.request(.max(1))
        XCTAssertEqual(groups.map(\.key), ["a", "b"])
        let first = Recorder<String, Never>()
        groups[0].subscribe(first)
        let second = Recorder<String, Never>()
        groups[0].subscribe(second)
        XCTAssertEqual(first.values, ["apple"])
        XCTAssertEqual(second.events, [.subscription("Empty"), .completion(.finished)])
    }

    func testFailureFailsEveryGroupAndTheOuter() {
        let source = ManualPublisher<Int, TestError>(recordsSubscriptions: true)
        var groups: [Group] = []
        let outer = Recorder<Group, TestError>(onValue: { _, group in
            groups.append(group); return .none
        })
        source.groupBy { $0 }.subscribe(outer)
        source.send(1)
        let group = Recorder<Int, TestError>()
        groups[0].subscribe(group)
        source.send(completion: .failure(TestError(3)))
        XCTAssertEqual(group.events, [.subscription("GroupBy.Group"), .value(1), .completion(.failure(TestError(3)))])
        XCTAssertEqual(outer.events.count, 3)
    }

    func testCancelledGroupReopensAndUpstreamLivesWhileAGroupIsSubscribed() {
        let source = ManualPublisher<Int, TestError>(recordsSubscriptions: true)
        var groups: [Group] = []
        let outer = Recorder<Group, TestError>(onValue: { _, group in
            groups.append(group); return .none
        })
        source.groupBy { $0 % 10 }.subscribe(outer)
        source.send(1)
        let g1 = Recorder<Int, TestError>()
        groups[0].subscribe(g1)
        g1.cancel()
        source.send(11)
        XCTAssertEqual(groups.count, 2, "a new group for the key after the old one was cancelled")
        let g2 = Recorder<Int, TestError>()
        groups[1].subscribe(g2)
        source.send(2)  // a group nobody subscribes to
        outer.cancel()
        XCTAssertEqual(source.history, [.subscribed, .request(.unlimited)], "g2 is still subscribed")
        source.send(3)  // new key after the outer left: dropped
        source.send(21)
        XCTAssertEqual(g2.values, [11, 21])
        let late = Recorder<Int, TestError>()
        groups[2].subscribe(late)
        XCTAssertEqual(
            late.events, [.subscription("GroupBy.Group"), .value(2), .completion(.finished)],
            "unsubscribed groups finished")
        g2.cancel()
        XCTAssertEqual(source.history, [.subscribed, .request(.unlimited), .cancel])
    }

    func testOuterCancelWithoutGroupsCancelsUpstreamAndReleases() {
        let source = ManualPublisher<Int, TestError>(recordsSubscriptions: true)
        weak var weakOuter: Recorder<Group, TestError>?
        do {
            let outer = Recorder<Group, TestError>()
            weakOuter = outer
            source.groupBy { $0 }.subscribe(outer)
            outer.cancel()
            outer.cancel()
        }
        XCTAssertEqual(source.history, [.subscribed, .request(.unlimited), .cancel])
        XCTAssertNil(weakOuter)
    }
}

final class GroupByConcurrencyTests: XCTestCase {
    func testGroupsConsumedOnOtherThreadsReceiveEverythingInOrder() {
        let subject = PassthroughSubject<Int, Never>()
        let groups = GroupCollector()
        let cancellable = subject.groupBy { $0 % 4 }.sink { groups.add($0) }
        for i in 0..<4 { subject.send(i) }
        let recorders = groups.all.map { group -> (Int, Recorder<Int, Never>, OverlapDetector) in
            let detector = OverlapDetector()
            return (
                group.key, Recorder<Int, Never>(initialDemand: nil, onValue: { _, _ in detector.around { .none } }),
                detector
            )
        }
        for (index, group) in groups.all.enumerated() {
            group.subscribe(recorders[index].1)
        }
        runConcurrently(threads: 3) { thread in
            if thread == 0 {
                for i in 4..<4_000 { subject.send(i) }
            } else {
                for _ in 0..<1_000 {
                    for (_, recorder, _) in recorders { recorder.request(.max(1)) }
                }
            }
        }
        subject.send(completion: .finished)
        for (key, recorder, detector) in recorders {
            XCTAssertEqual(recorder.values, Array(stride(from: key, to: 4_000, by: 4)))
            XCTAssertEqual(recorder.events.last, .completion(.finished))
            XCTAssertEqual(detector.overlaps, 0)
        }
        withExtendedLifetime(cancellable) {}
    }

    func testLockInversionWithUserLockHeldWhileSending() {
        let subject = PassthroughSubject<Int, Never>()
        let userLock = NSRecursiveLock()
        let count = Counter()
        var inner: [AnyCancellable] = []
        let innerLock = NSLock()
        let cancellable = subject.groupBy { $0 % 3 }.sink { group in
            let c = group.sink { _ in
                userLock.lock()
                count.add(1)
                userLock.unlock()
            }
            innerLock.lock()
            inner.append(c)
            innerLock.unlock()
        }
        runConcurrently(threads: 2, timeout: 60) { thread in
            for i in 0..<1_000 {
                userLock.lock()
                subject.send(thread * 1_000 + i)
                userLock.unlock()
            }
        }
        XCTAssertEqual(count.value, 2_000)
        withExtendedLifetime((cancellable, inner)) {}
    }
}

/// Groups collected from the outer subscriber.
private final class GroupCollector: @unchecked Sendable {
    private let lock = NSLock()
    private var groups: [GroupedPublisher<Int, Int, Never>] = []
    func add(_ group: GroupedPublisher<Int, Int, Never>) {
        lock.lock()
        groups.append(group)
        lock.unlock()
    }
    var all: [GroupedPublisher<Int, Int, Never>] {
        lock.lock()
        defer { lock.unlock() }
        return groups
    }
}
