import Untangle
import XCTest

final class AnyCancellableTests: XCTestCase {
    // OpenCombine/OpenCombine 9da9004: a second cancel() ran the closure again.
    func testCancelRunsTheClosureOnce() {
        let calls = Counter()
        let cancellable = AnyCancellable { calls.increment() }
        XCTAssertEqual(calls.value, 0)
        cancellable.cancel()
        cancellable.cancel()
        XCTAssertEqual(calls.value, 1)
    }

    func testDeinitRunsTheClosure() {
        let calls = Counter()
        var cancellable: AnyCancellable? = AnyCancellable { calls.increment() }
        withExtendedLifetime(cancellable) {}
        cancellable = nil
        XCTAssertEqual(calls.value, 1)
    }

    func testDeinitAfterCancelDoesNotRunTheClosureAgain() {
        let calls = Counter()
        var cancellable: AnyCancellable? = AnyCancellable { calls.increment() }
        cancellable?.cancel()
        cancellable = nil
        XCTAssertEqual(calls.value, 1)
    }

    func testCancelFromInsideTheClosureDoesNotRunItAgain() {
        let calls = Counter()
        var cancellable: AnyCancellable?
        cancellable = AnyCancellable {
            calls.increment()
            cancellable?.cancel()
        }
        cancellable?.cancel()
        XCTAssertEqual(calls.value, 1)
        cancellable = nil
        XCTAssertEqual(calls.value, 1)
    }

    func testTheClosureIsReleasedAfterCancel() {
        weak var weakToken: Token?
        let cancellable: AnyCancellable
        do {
            let token = Token()
            weakToken = token
            cancellable = AnyCancellable { withExtendedLifetime(token) {} }
        }
        XCTAssertNotNil(weakToken)
        cancellable.cancel()
        XCTAssertNil(weakToken, "the closure outlived cancel()")
    }

    // The closure shares its slot with the target's type (TwoWordBits): the deinit path must move it out, run it
    // and release what it captured, like cancel().
    func testTheClosureIsReleasedWhenDeinitRunsIt() {
        let calls = Counter()
        var (cancellable, weakToken) = cancellableCapturingAToken(counting: calls)
        XCTAssertNotNil(cancellable)
        XCTAssertNotNil(weakToken.object)
        cancellable = nil
        XCTAssertEqual(calls.value, 1)
        XCTAssertNil(weakToken.object, "the closure outlived the AnyCancellable")
    }

    // A closure with no context (a global function) has a null context word in the shared slot.
    func testAClosureWithoutContextRunsOnce() {
        let before = contextFreeCalls.value
        let cancellable = AnyCancellable(incrementContextFreeCalls)
        cancellable.cancel()
        cancellable.cancel()
        XCTAssertEqual(contextFreeCalls.value - before, 1)
    }

    // A value-type cancellable is kept boxed, with the box's type in the shared slot.
    func testWrappingAStructForwardsOneCancelAndReleasesWhatItHolds() {
        struct Probe: Cancellable {
            let calls: Counter
            let token: Token
            func cancel() { calls.increment() }
        }
        let calls = Counter()
        weak var weakToken: Token?
        var cancellable: AnyCancellable?
        do {
            let token = Token()
            weakToken = token
            cancellable = AnyCancellable(Probe(calls: calls, token: token))
        }
        XCTAssertNotNil(weakToken)
        cancellable?.cancel()
        XCTAssertEqual(calls.value, 1)
        XCTAssertNil(weakToken, "the boxed cancellable outlived cancel()")
        cancellable = nil
        XCTAssertEqual(calls.value, 1)
    }

    func testWrappingACancellableForwardsOneCancelAndReleasesIt() {
        final class Probe: Cancellable {
            let calls: Counter
            init(calls: Counter) { self.calls = calls }
            func cancel() { calls.increment() }
        }
        let calls = Counter()
        weak var weakProbe: Probe?
        let cancellable: AnyCancellable
        do {
            let probe = Probe(calls: calls)
            weakProbe = probe
            cancellable = AnyCancellable(probe)
        }
        XCTAssertNotNil(weakProbe)
        cancellable.cancel()
        cancellable.cancel()
        XCTAssertEqual(calls.value, 1)
        XCTAssertNil(weakProbe)
    }

    func testHashableByIdentity() {
        let a = AnyCancellable {}
        let b = AnyCancellable {}
        XCTAssertEqual(a, a)
        XCTAssertNotEqual(a, b)
        XCTAssertEqual(Set([a, a, b]).count, 2)
        XCTAssertEqual(a.hashValue, a.hashValue)
    }

    func testStoreInSetInsertsTheSameInstance() {
        var set = Set<AnyCancellable>()
        let calls = Counter()
        let cancellable = AnyCancellable { calls.increment() }
        cancellable.store(in: &set)
        cancellable.store(in: &set)
        XCTAssertEqual(set.count, 1)
        XCTAssertTrue(set.contains(cancellable))
        set.removeAll()
        XCTAssertEqual(calls.value, 0, "still referenced by the test")
        withExtendedLifetime(cancellable) {}
    }

    func testStoreInCollectionAppendsTheSameInstance() {
        var array: [AnyCancellable] = []
        let cancellable = AnyCancellable {}
        cancellable.store(in: &array)
        cancellable.store(in: &array)
        XCTAssertEqual(array.count, 2)
        XCTAssertTrue(array.allSatisfy { $0 === cancellable })
    }

    func testStoredCancellablesCancelWhenTheContainerIsReleased() {
        let calls = Counter()
        var set: Set<AnyCancellable>? = []
        var array: [AnyCancellable]? = []
        AnyCancellable { calls.increment() }.store(in: &set!)
        AnyCancellable { calls.increment() }.store(in: &array!)
        XCTAssertEqual(calls.value, 0)
        set = nil
        XCTAssertEqual(calls.value, 1)
        array = nil
        XCTAssertEqual(calls.value, 2)
    }

    func testCancellableStoreOverloadsWrapInAnAnyCancellable() {
        let upstream = ManualPublisher<Int, Never>()
        let sink = Subscribers.Sink<Int, Never>(receiveCompletion: { _ in }, receiveValue: { _ in })
        upstream.subscribe(sink)
        var set = Set<AnyCancellable>()
        var array: [AnyCancellable] = []
        sink.store(in: &set)
        sink.store(in: &array)
        XCTAssertEqual(set.count, 1)
        XCTAssertEqual(array.count, 1)
        set.first?.cancel()
        array.first?.cancel()
        XCTAssertEqual(upstream.history, [.request(.unlimited), .cancel])
    }
}

final class AnyCancellableConcurrencyTests: XCTestCase {
    // A closure moved out of the slot twice would be released twice (a crash): eight threads race to cancel and
    // then the deinit runs.
    func testConcurrentCancelsReleaseTheClosureOnce() {
        for _ in 0..<100 {
            let calls = Counter()
            var (cancellable, weakToken) = cancellableCapturingAToken(counting: calls)
            let shared = cancellable!
            runConcurrently(threads: 8) { _ in shared.cancel() }
            cancellable = nil
            XCTAssertEqual(calls.value, 1)
            XCTAssertNil(weakToken.object)
        }
    }

    func testCancelFromEightThreadsRunsTheClosureExactlyOnce() {
        for _ in 0..<100 {
            let calls = Counter()
            let cancellable = AnyCancellable { calls.increment() }
            runConcurrently(threads: 8) { _ in cancellable.cancel() }
            XCTAssertEqual(calls.value, 1)
        }
    }
}

private let contextFreeCalls = Counter()

private func incrementContextFreeCalls() {
    contextFreeCalls.increment()
}

/// A weak reference to a token, for tests that watch what a closure captured go away.
private final class WeakToken {
    weak var object: Token?
}

/// An `AnyCancellable` whose closure captures a token (watched through the returned weak reference) and counts its
/// runs in `calls`.
private func cancellableCapturingAToken(counting calls: Counter) -> (AnyCancellable?, WeakToken) {
    let token = Token()
    let weakToken = WeakToken()
    weakToken.object = token
    let cancellable = AnyCancellable {
        withExtendedLifetime(token) {}
        calls.increment()
    }
    return (cancellable, weakToken)
}
