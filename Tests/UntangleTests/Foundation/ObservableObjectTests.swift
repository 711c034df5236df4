import Foundation
import Untangle
import UntangleSync
import XCTest

// @unchecked Sendable: the threads only touch @Published properties, which are thread-safe.
private final class Contact: ObservableObject, @unchecked Sendable {
    @Published var name: String
    @Published var age: Int
    var notPublished = 0
    init(name: String, age: Int) {
        self.name = name
        self.age = age
    }
}

private class Base: ObservableObject {
    @Published var base = 0
}

private final class Derived: Base {
    @Published var derived = ""
}

// @unchecked Sendable: only objectWillChange is shared between threads.
private final class Manual: ObservableObject, @unchecked Sendable {
    var count = 0 {
        willSet { objectWillChange.send() }
    }
}

private final class CustomPublisher: ObservableObject {
    let objectWillChange = PassthroughSubject<Void, Never>()
    @Published var value = 0
}

final class ObservableObjectTests: XCTestCase {
    func testObjectWillChangeFiresBeforeEachPublishedChange() {
        let john = Contact(name: "John Appleseed", age: 24)
        var log: [String] = []
        let cancellable = john.objectWillChange.sink { [unowned john] in
            log.append("will change: age \(john.age), name \(john.name)")
        }
        john.age += 1
        john.name = "John"
        john.notPublished = 3
        XCTAssertEqual(log, ["will change: age 24, name John Appleseed", "will change: age 25, name John Appleseed"])
        cancellable.cancel()
    }

    func testObjectWillChangeIsTheSamePublisherOnEveryRead() {
        let contact = Contact(name: "a", age: 1)
        XCTAssertTrue(contact.objectWillChange === contact.objectWillChange)
        let manual = Manual()
        XCTAssertTrue(manual.objectWillChange === manual.objectWillChange)
    }

    func testObjectWillChangeCoversSuperclassProperties() {
        let derived = Derived()
        var count = 0
        let cancellable = derived.objectWillChange.sink { count += 1 }
        derived.base = 1
        derived.derived = "x"
        XCTAssertEqual(count, 2)
        cancellable.cancel()
    }

    func testAnObjectWithoutPublishedPropertiesKeepsItsPublisherForManualSends() {
        let manual = Manual()
        var count = 0
        let cancellable = manual.objectWillChange.sink { count += 1 }
        manual.count = 1
        manual.count = 2
        XCTAssertEqual(count, 2)
        cancellable.cancel()
    }

    func testAssignToPublishedAnnouncesOnObjectWillChange() {
        let contact = Contact(name: "a", age: 1)
        var count = 0
        let cancellable = contact.objectWillChange.sink { count += 1 }
        Just(40).assign(to: &contact.$age)
        XCTAssertEqual(count, 1)
        XCTAssertEqual(contact.age, 40)
        cancellable.cancel()
    }

    func testACustomObjectWillChangeIsLeftAlone() {
        let object = CustomPublisher()
        var count = 0
        let cancellable = object.objectWillChange.sink { count += 1 }
        object.value = 1
        XCTAssertEqual(count, 0, "as in Apple's Combine, @Published does not send to a publisher the class declares")
        object.objectWillChange.send()
        XCTAssertEqual(count, 1)
        cancellable.cancel()
    }

    // Unlike Combine (which ignores the amount once anything was requested), demand stays exact: the threading
    // contract.
    func testObservableObjectPublisherHonoursDemand() {
        let publisher = ObservableObjectPublisher()
        let recorder = Recorder<Void, Never>(initialDemand: .max(1))
        publisher.subscribe(recorder)
        publisher.send()
        publisher.send()
        XCTAssertEqual(recorder.values.count, 1)
        recorder.request(.max(2))
        publisher.send()
        XCTAssertEqual(recorder.values.count, 2)
        recorder.cancel()
        publisher.send()
        XCTAssertEqual(recorder.values.count, 2)
    }

    func testObservableObjectPublisherSubscriptionDescribesItself() {
        let publisher = ObservableObjectPublisher()
        let recorder = Recorder<Void, Never>()
        publisher.subscribe(recorder)
        XCTAssertEqual(recorder.events.count, 1)
        let subscription = recorder.subscription
        XCTAssertEqual(subscription.map { String(describing: $0) }, "ObservableObjectPublisher")
        let mirror = subscription.flatMap { ($0 as? CustomReflectable)?.customMirror }
        XCTAssertEqual(mirror?.children.map(\.label), ["downstream"])
    }

    func testAnObjectUsingTheDefaultPublisherIsReleased() {
        weak var weakManual: Manual?
        weak var weakContact: Contact?
        do {
            let manual = Manual()
            let contact = Contact(name: "b", age: 2)
            _ = manual.objectWillChange
            _ = contact.objectWillChange
            weakManual = manual
            weakContact = contact
        }
        XCTAssertNil(weakManual)
        XCTAssertNil(weakContact)
    }
}

/// First reads of `objectWillChange` racing each other and changes racing subscriptions, from several threads.
final class ObservableObjectConcurrencyTests: XCTestCase {
    func testConcurrentFirstReadsAgreeOnOnePublisher() {
        for _ in 0..<200 {
            let contact = Contact(name: "x", age: 0)
            let seen = LockedBox<[ObjectIdentifier]>([])
            runConcurrently(threads: 4) { _ in
                let publisher = contact.objectWillChange
                seen.withLock { $0.append(ObjectIdentifier(publisher)) }
            }
            XCTAssertEqual(Set(seen.withLock { $0 }).count, 1)
            let manual = Manual()
            let manualSeen = LockedBox<[ObjectIdentifier]>([])
            runConcurrently(threads: 4) { _ in
                let publisher = manual.objectWillChange
                manualSeen.withLock { $0.append(ObjectIdentifier(publisher)) }
            }
            XCTAssertEqual(Set(manualSeen.withLock { $0 }).count, 1)
        }
    }

    func testChangesFromManyThreadsAreAllAnnouncedAndPublished() {
        let contact = Contact(name: "x", age: 0)
        let announcements = LockedBox(0)
        let published = LockedBox(0)
        let gauge = OverlapGauge()
        let willChange = contact.objectWillChange.sink {
            gauge.enter()
            announcements.withLock { $0 += 1 }
            gauge.leave()
        }
        let ages = contact.$age.sink { _ in published.withLock { $0 += 1 } }
        runConcurrently(threads: 4) { thread in
            for i in 0..<1_000 {
                contact.age = thread * 1_000 + i
                _ = contact.age
            }
        }
        XCTAssertEqual(announcements.withLock { $0 }, 4_000)
        XCTAssertEqual(published.withLock { $0 }, 4_001, "the initial value, then every change")
        XCTAssertEqual(gauge.maximum, 1, "one announcement at a time")
        willChange.cancel()
        ages.cancel()
    }
}
