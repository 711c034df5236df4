import Foundation
import Untangle
import UntangleSync
import XCTest

/// Measures how deeply calls nest and how many overlap across threads: a reentrant request must not make the
/// publisher deliver the next value nested inside the current `receive`, and concurrent requests must never make
/// two `receive` calls overlap.
final class OverlapGauge: @unchecked Sendable {
    private let box = LockedBox((current: 0, maximum: 0))

    func enter() {
        box.withLock { state in
            state.current += 1
            state.maximum = Swift.max(state.maximum, state.current)
        }
    }

    func leave() { box.withLock { $0.current -= 1 } }

    /// The largest number of calls that were ever inside at once.
    var maximum: Int { box.withLock { $0.maximum } }
}

/// Holds a Future's promise so that a test (or another thread) can fulfil it later.
final class PromiseBox<Output, Failure: Error>: @unchecked Sendable {
    private let box = LockedBox<Future<Output, Failure>.Promise?>(nil)

    /// A future whose promise is kept in this box.
    func makeFuture() -> Future<Output, Failure> {
        Future { promise in self.box.withLock { $0 = promise } }
    }

    func fulfil(_ result: Result<Output, Failure>) {
        let promise = box.withLock { $0 }
        promise?(result)
    }
}

/// Subscribes a fresh `Recorder` to `publisher`, lets `end` end the subscription (cancel, or nothing when the
/// publisher completes by itself), then asserts that the subscription the recorder received no longer retains it.
///
/// The recorder itself retains its subscription, so a subscription that kept its subscriber after the end would be
/// a reference cycle: a leak.
func assertSubscriptionReleasesSubscriber<P: Publisher>(
    _ publisher: P,
    initialDemand: Subscribers.Demand? = .unlimited,
    file: StaticString = #filePath,
    line: UInt = #line,
    end: (Recorder<P.Output, P.Failure>) -> Void = { _ in }
) {
    weak var weakRecorder: Recorder<P.Output, P.Failure>?
    var subscription: Subscription?
    do {
        let recorder = Recorder<P.Output, P.Failure>(initialDemand: initialDemand)
        weakRecorder = recorder
        publisher.subscribe(recorder)
        subscription = recorder.subscription
        end(recorder)
    }
    XCTAssertNotNil(subscription, "the subscriber never received a subscription", file: file, line: line)
    XCTAssertNil(weakRecorder, "the subscription still retains its subscriber", file: file, line: line)
    withExtendedLifetime(subscription) {}
}
