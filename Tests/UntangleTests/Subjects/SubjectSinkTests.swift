import XCTest

@testable import Untangle
@testable import UntangleSync

/// `subject.sink { }` on a PassthroughSubject is one object, a `SubjectSink` that is its own downstream
/// (Sources/Untangle/Subjects/SubjectSink.swift). These pin down that it is what the subject keeps, where its inline
/// state is, and that nothing observable differs from a `Subscribers.Sink` on the same subject.
final class SubjectSinkTests: XCTestCase {
    struct WideError: Error {
        var lanes: SIMD4<Float>
    }

    /// The subscription the subject keeps for its last subscriber.
    private func lastConduit<Output, Failure>(
        of subject: PassthroughSubject<Output, Failure>
    ) -> SubjectConduit<Output, Failure>? {
        subject.core.state.withCriticalSection { $0.conduits.last }
    }

    /// What a sink's closures capture, to see when they are released.
    private final class Captured {
        var values: [Int] = []
    }

    func checkLayout<Failure: Error>(_ failure: Failure.Type, file: StaticString = #filePath, line: UInt = #line) {
        let subject = PassthroughSubject<Int, Failure>()
        let cancellable = subject.sink(receiveCompletion: { _ in }, receiveValue: { _ in })
        guard let sink = lastConduit(of: subject) as? SubjectSinkOf<Int, Failure> else {
            return XCTFail("subject.sink makes a SubjectSink", file: file, line: line)
        }
        let stateAddress = withUnsafeMutablePointer(to: &sink.state) { UnsafeMutableRawPointer($0) }
        let machineAddress = withUnsafeMutablePointer(to: &sink.state.machine) { $0 }
        typealias State = SubjectSubscriptionState<EmitterStateMachine<SubjectSinkBase<Int, Failure>>>
        XCTAssertEqual(
            stateAddress,
            _getUnsafePointerToStoredProperties(sink)
                + MemoryLayout<State>.offset(placedAfter: 5 * MemoryLayout<AnyObject>.size),
            "the state follows the entries' reference and the two closures", file: file, line: line)
        XCTAssertEqual(sink.inlineState.value, machineAddress, "the state machine's address", file: file, line: line)
        XCTAssertEqual(
            sink.inlineState.withUnlockedValue { $0 }, machineAddress, "the lock-free path's address", file: file,
            line: line)
        withExtendedLifetime(cancellable) {}
    }

    func testTheBaseClassesStoreFiveWordsBeforeTheState() {
        XCTAssertEqual(MemoryLayout<SinkClosures<Int, Error>>.size, 4 * MemoryLayout<AnyObject>.size)
    }

    func testTheInlineStateIsWhereItsAddressIsComputedForANeverFailingSink() {
        checkLayout(Never.self)
    }

    func testTheInlineStateIsWhereItsAddressIsComputedForAnErrorFailingSink() {
        checkLayout(Error.self)
    }

    func testTheInlineStateIsWhereItsAddressIsComputedForAnOverAlignedFailure() {
        XCTAssertEqual(MemoryLayout<WideError>.alignment, 16)
        checkLayout(WideError.self)
    }

    func testASinkOnAPublisherOfUnknownTypeIsStillASubscriptionWithASink() {
        let subject = PassthroughSubject<Int, Never>()
        let cancellable = AnyPublisher(subject).sink { _ in }
        XCTAssertTrue(lastConduit(of: subject) is SubjectSubscriptionOf<Subscribers.Sink<Int, Never>>)
        cancellable.cancel()
    }

    /// One script (a send from inside a delivery, a cancel of another sink from inside a delivery, a completion) on
    /// a subject with two sinks of one kind; the log of what both sinks received.
    private func runScript(fused: Bool) -> [String] {
        let subject = PassthroughSubject<Int, TestError>()
        let log = LockedBox<[String]>([])
        var second: AnyCancellable?
        func attach(_ name: String, onValue: @escaping (Int) -> Void) -> AnyCancellable {
            let receiveCompletion: (Subscribers.Completion<TestError>) -> Void = { completion in
                log.withLock { $0.append("\(name) completion \(completion)") }
            }
            let receiveValue: (Int) -> Void = { value in
                log.withLock { $0.append("\(name) \(value)") }
                onValue(value)
            }
            if fused {
                return subject.sink(receiveCompletion: receiveCompletion, receiveValue: receiveValue)
            }
            return AnyPublisher(subject).sink(receiveCompletion: receiveCompletion, receiveValue: receiveValue)
        }
        let first = attach("x") { value in
            if value == 1 { subject.send(10) }
            if value == 2 { second?.cancel() }
        }
        second = attach("y") { _ in }
        XCTAssertEqual(
            lastConduit(of: subject) is SubjectSinkOf<Int, TestError>, fused, "the kind of sink the subject keeps")
        subject.send(1)
        subject.send(2)
        subject.send(3)
        subject.send(completion: .failure(TestError(7)))
        subject.send(4)
        withExtendedLifetime(first) {}
        return log.withLock { $0 }
    }

    func testBothKindsOfSinkLogTheSameEventsForTheSameScript() {
        let expected = ["x 1", "x 10", "y 10", "y 1", "x 2", "x 3", "x completion failure(TestError(7))"]
        XCTAssertEqual(runScript(fused: true), expected)
        XCTAssertEqual(runScript(fused: false), expected)
    }

    func testASinkCancelledInsideItsOwnReceiveGetsNothingMore() {
        let subject = PassthroughSubject<Int, Never>()
        var values: [Int] = []
        var cancellable: AnyCancellable?
        cancellable = subject.sink { value in
            values.append(value)
            if value == 2 {
                cancellable?.cancel()
                subject.send(20)
            }
        }
        subject.send(1)
        subject.send(2)
        subject.send(3)
        XCTAssertEqual(values, [1, 2])
        XCTAssertNil(lastConduit(of: subject), "the cancelled sink left the subject's list")
    }

    func testTheCompletionReleasesTheClosuresAndTheSubjectsReference() {
        let subject = PassthroughSubject<Int, Never>()
        weak var weakCaptured: Captured?
        weak var weakSink: SubjectConduit<Int, Never>?
        var cancellable: AnyCancellable?
        do {
            let captured = Captured()
            weakCaptured = captured
            cancellable = subject.sink(
                receiveCompletion: { _ in captured.values.append(-1) },
                receiveValue: { value in captured.values.append(value) })
            weakSink = lastConduit(of: subject)
        }
        subject.send(1)
        XCTAssertEqual(weakCaptured?.values, [1])
        subject.send(completion: .finished)
        XCTAssertNil(weakCaptured, "the completion released the closures")
        XCTAssertNotNil(weakSink, "the AnyCancellable still holds the subscription")
        cancellable = nil
        XCTAssertNil(weakSink, "the subscription is gone with its AnyCancellable (no cycle left)")
        withExtendedLifetime(cancellable) {}
    }

    /// `AnyCancellable.cancel()` lets go of what it cancelled, so a cancelled sink's closures (and what they
    /// captured) go at once, for both kinds of sink, as Combine's sink drops its closures at `cancel()`.
    func testCancelReleasesTheClosuresAndTheSubscriptionForBothKindsOfSink() {
        for fused in [true, false] {
            let subject = PassthroughSubject<Int, Never>()
            weak var weakCaptured: Captured?
            weak var weakSink: SubjectConduit<Int, Never>?
            var cancellable: AnyCancellable?
            do {
                let captured = Captured()
                weakCaptured = captured
                let receiveValue: (Int) -> Void = { value in captured.values.append(value) }
                cancellable =
                    fused
                    ? subject.sink(receiveValue: receiveValue) : AnyPublisher(subject).sink(receiveValue: receiveValue)
                weakSink = lastConduit(of: subject)
            }
            subject.send(1)
            XCTAssertEqual(weakCaptured?.values, [1], "fused: \(fused)")
            cancellable?.cancel()
            subject.send(2)
            XCTAssertNil(lastConduit(of: subject), "the cancel took the subscription out of the list (fused: \(fused))")
            XCTAssertNil(weakCaptured, "the cancel released the closures (fused: \(fused))")
            XCTAssertNil(weakSink, "the subscription is gone (fused: \(fused))")
            withExtendedLifetime(cancellable) {}
        }
    }

    func testADroppedCancellableCancelsAndFreesTheSubscription() {
        let subject = PassthroughSubject<Int, Never>()
        var values: [Int] = []
        weak var weakSink: SubjectConduit<Int, Never>?
        do {
            let cancellable = subject.sink { values.append($0) }
            weakSink = lastConduit(of: subject)
            subject.send(1)
            withExtendedLifetime(cancellable) {}
        }
        subject.send(2)
        XCTAssertEqual(values, [1])
        XCTAssertNil(weakSink)
        XCTAssertNil(lastConduit(of: subject))
    }

    func testASinkOnACompletedSubjectGetsTheCompletionAtOnceAndIsNotKept() {
        let subject = PassthroughSubject<Int, TestError>()
        subject.send(completion: .failure(TestError(2)))
        var events: [String] = []
        let cancellable = subject.sink(
            receiveCompletion: { events.append("completion \($0)") }, receiveValue: { events.append("value \($0)") })
        subject.send(1)
        XCTAssertEqual(events, ["completion failure(TestError(2))"])
        XCTAssertNil(lastConduit(of: subject))
        withExtendedLifetime(cancellable) {}
    }

    /// A PassthroughSubject asks its upstream for `.unlimited` on its first downstream demand: a sink is that demand.
    func testTheFirstSinkStartsTheSubjectsUpstream() {
        let subject = PassthroughSubject<Int, Never>()
        let upstream = ManualPublisher<Int, Never>()
        let connection = upstream.subscribe(subject)
        XCTAssertEqual(upstream.history, [])
        let first = subject.sink { _ in }
        let second = subject.sink { _ in }
        XCTAssertEqual(upstream.history, [.request(.unlimited)])
        withExtendedLifetime((first, second, connection)) {}
    }

    func testTheSubjectGoingAwayLeavesTheSinkToItsCancellable() {
        var subject: PassthroughSubject<Int, Never>? = PassthroughSubject()
        weak var weakSink: SubjectConduit<Int, Never>?
        var values: [Int] = []
        var cancellable = subject?.sink { values.append($0) }
        weakSink = lastConduit(of: subject!)
        subject?.send(1)
        subject = nil
        XCTAssertNotNil(weakSink)
        cancellable = nil
        XCTAssertNil(weakSink)
        XCTAssertEqual(values, [1])
        withExtendedLifetime(cancellable) {}
    }
}

extension SubjectSinkTests {
    /// The subscription a current-value subject keeps for its last subscriber.
    private func lastConduit<Output, Failure>(
        of subject: CurrentValueSubject<Output, Failure>
    ) -> SubjectConduit<Output, Failure>? {
        subject.core.state.withCriticalSection { $0.conduits.last }
    }

    func testACurrentValueSubjectsSinkIsOneObjectThatGetsTheCurrentValueBeforeSinkReturns() {
        let subject = CurrentValueSubject<Int, TestError>(1)
        var events: [String] = []
        let cancellable = subject.sink(
            receiveCompletion: { events.append("completion \($0)") }, receiveValue: { events.append("\($0)") })
        XCTAssertEqual(events, ["1"], "the current value, before sink returned")
        XCTAssertTrue(lastConduit(of: subject) is SubjectSinkOf<Int, TestError>)
        subject.send(2)
        subject.value = 3
        subject.send(completion: .failure(TestError(4)))
        subject.send(5)
        subject.value = 6
        XCTAssertEqual(events, ["1", "2", "3", "completion failure(TestError(4))"])
        XCTAssertNil(lastConduit(of: subject))
        withExtendedLifetime(cancellable) {}
    }

    func testACompletedCurrentValueSubjectsSinkGetsOnlyTheCompletion() {
        let subject = CurrentValueSubject<Int, Never>(1)
        subject.send(completion: .finished)
        var events: [String] = []
        let cancellable = subject.sink(
            receiveCompletion: { events.append("completion \($0)") }, receiveValue: { events.append("\($0)") })
        XCTAssertEqual(events, ["completion finished"])
        withExtendedLifetime(cancellable) {}
    }

    /// One script on a current-value subject (sinks attached from inside another sink's delivery, each getting the
    /// value being delivered at once; a sink cancelling itself inside a delivery) through both kinds of sink.
    private func runCurrentValueScript(fused: Bool) -> [String] {
        let subject = CurrentValueSubject<Int, Never>(0)
        let log = LockedBox<[String]>([])
        var later: [AnyCancellable] = []
        func attach(_ name: String, onValue: @escaping (Int, AnyCancellable?) -> Void) -> AnyCancellable {
            var made: AnyCancellable?
            let receiveValue: (Int) -> Void = { value in
                log.withLock { $0.append("\(name) \(value)") }
                onValue(value, made)
            }
            made =
                fused
                ? subject.sink(receiveValue: receiveValue) : AnyPublisher(subject).sink(receiveValue: receiveValue)
            return made!
        }
        let first = attach("x") { value, _ in
            if value == 2 { later.append(attach("z") { _, _ in }) }
            if value == 3 {
                later.append(attach("w") { value, cancellable in if value == 4 { cancellable?.cancel() } })
            }
        }
        subject.send(1)
        subject.send(2)
        subject.send(3)
        subject.send(4)
        subject.send(5)
        // Each closure holds its own sink's cancellable (through `made`): cancelling breaks that cycle.
        first.cancel()
        later.forEach { $0.cancel() }
        return log.withLock { $0 }
    }

    func testBothKindsOfSinkOnACurrentValueSubjectLogTheSameEvents() {
        let expected = ["x 0", "x 1", "x 2", "z 2", "x 3", "w 3", "z 3", "x 4", "z 4", "w 4", "x 5", "z 5"]
        XCTAssertEqual(runCurrentValueScript(fused: true), expected)
        XCTAssertEqual(runCurrentValueScript(fused: false), expected)
    }

    func testAPublishedPropertysSinkIsOneObjectThatGetsTheCurrentValueFirst() {
        final class Model: ObservableObject {
            @Published var name = "a"
        }
        let model = Model()
        var names: [String] = []
        let cancellable = model.$name.sink { names.append($0) }
        XCTAssertTrue(lastConduit(of: model.$name.box.subject) is SubjectSinkOf<String, Never>)
        model.name = "b"
        cancellable.cancel()
        model.name = "c"
        XCTAssertEqual(names, ["a", "b"])
    }
}

final class SubjectSinkConcurrencyTests: XCTestCase {
    /// Nothing reaches a sink after its `cancel()` returned, while another thread sends without pause: a delivery
    /// that started before the cancel may finish (its closure entered just after), none may start after it.
    func testNoDeliveryStartsAfterCancelReturnedWhileAnotherThreadSends() {
        for _ in 0..<200 {
            let subject = PassthroughSubject<Int, Never>()
            let cancelled = AtomicWord(0)
            let late = LockedBox(0)
            let received = AtomicWord(0)
            let cancellable = subject.sink { _ in
                if cancelled.load() == 1 { late.withLock { $0 += 1 } }
                _ = received.exchange(1)
            }
            runConcurrently(threads: 2, timeout: 300) { thread in
                if thread == 0 {
                    var value = 0
                    while cancelled.load() == 0 {
                        subject.send(value)
                        value += 1
                    }
                    subject.send(value)
                } else {
                    while received.load() == 0 {}
                    cancellable.cancel()
                    _ = cancelled.exchange(1)
                }
            }
            // The sending thread may have taken the value it delivers before the cancel, and enter the closure
            // after it returned: that one value, no other.
            XCTAssertLessThanOrEqual(late.withLock { $0 }, 1, "a value was delivered after cancel() returned")
        }
    }

    /// Sinks subscribing and cancelling on one thread while another sends: every subscription leaves the subject's
    /// list and is freed (counted with `LiveObjects` in debug builds).
    func testSinksSubscribingAndCancellingWhileAnotherThreadSendsLeaveNothingBehind() {
        let subject = PassthroughSubject<Int, Never>()
        let delivered = AtomicWord(0)
        let before = LiveObjects.count
        let done = AtomicWord(0)
        runConcurrently(threads: 2, timeout: 300) { thread in
            if thread == 0 {
                for _ in 0..<5_000 {
                    let cancellable = subject.sink { _ in _ = delivered.exchange(1) }
                    cancellable.cancel()
                }
                _ = done.exchange(1)
            } else {
                var value = 0
                while done.load() == 0 {
                    subject.send(value)
                    value += 1
                }
            }
        }
        XCTAssertEqual(LiveObjects.count, before, "a sink's subscription outlived its cancel")
        XCTAssertNil(subject.core.state.withCriticalSection { $0.conduits.last })
    }

    /// Sinks attaching to a current-value subject while another thread sends: each sink's first value is the
    /// subject's value at some moment of its attaching, then every later value in order, up to the last.
    func testCurrentValueSinksAttachingWhileAnotherThreadSendsSeeGaplessRunsFromACurrentValue() {
        let subject = CurrentValueSubject<Int, Never>(0)
        let count = 10_000
        let sinks = 100
        let runs = LockedBox<[[Int]]>(Array(repeating: [], count: sinks))
        let cancellables = LockedBox<[AnyCancellable]>([])
        runConcurrently(threads: 2, timeout: 600) { thread in
            if thread == 0 {
                for value in 1...count { subject.send(value) }
            } else {
                for index in 0..<sinks {
                    let cancellable = subject.sink { value in runs.withLock { $0[index].append(value) } }
                    cancellables.withLock { $0.append(cancellable) }
                }
            }
        }
        subject.send(count + 1)
        for (index, run) in runs.withLock({ $0 }).enumerated() {
            guard let first = run.first else {
                XCTFail("sink \(index) received nothing, not even the current value")
                continue
            }
            XCTAssertEqual(run, Array(first...(count + 1)), "sink \(index) missed or reordered values")
        }
        cancellables.withLock { $0.forEach { $0.cancel() } }
    }
}
