import Dispatch
import Foundation
import Swift5Client
import Untangle
import UntangleExtras
import XCTest

/// Runs the main run loop (which drains the main queue) until `done` or 60 seconds.
@MainActor
private func runMain(until done: () -> Bool) {
    let deadline = Date().addingTimeInterval(60)
    while !done() && Date() < deadline {
        _ = RunLoop.main.run(mode: .default, before: Date().addingTimeInterval(0.01))
    }
}

/// Swift 5 mode code that Apple's Combine runs must run with Untangle: closures formed on the main actor and run on
/// other threads are not checked (issue 29). XCTest on Linux cannot call `@MainActor` test methods, so each test runs
/// a `@MainActor` spec, as Quick's `spec()` is.
final class Swift5ClientTests: XCTestCase {
    func testViewModelWithPureClosuresBeforeTheHopRunsClean() {
        MainActor.assumeIsolated { MainActorSpec().viewModelWithPureClosuresBeforeTheHopRunsClean() }
    }

    func testSinkInAMainActorSpecFedFromConcurrentPerformRunsOnTheSendingThreads() {
        MainActor.assumeIsolated { MainActorSpec().sinkFedFromConcurrentPerformRunsOnTheSendingThreads() }
    }

    func testOperatorsBeforeASinkInAMainActorSpecRunOffMain() {
        MainActor.assumeIsolated { MainActorSpec().operatorsBeforeASinkRunOffMain() }
    }

    func testPublishedAssignedAfterTheHop() {
        MainActor.assumeIsolated { MainActorSpec().publishedAssignedAfterTheHop() }
    }
}

/// The tests' bodies, in main-actor code: every closure they form is main-actor isolated.
@MainActor
private struct MainActorSpec {
    func viewModelWithPureClosuresBeforeTheHopRunsClean() {
        let service = PriceService()
        let model = PriceViewModel(service: service)
        let count = 200
        service.sendPrices(count)
        runMain { model.received == count && model.evenCount == count / 2 && model.latestTagged == 1_000 + count }
        XCTAssertEqual(model.received, count)
        XCTAssertEqual(model.total, count * (count + 1) / 2)
        XCTAssertEqual(model.evenCount, count / 2, "(2 * price) % 4 == 0 for the even prices")
        XCTAssertEqual(model.latestTagged, 1_000 + count)
        XCTAssertTrue(model.label.hasPrefix("price "), model.label)
    }

    func sinkFedFromConcurrentPerformRunsOnTheSendingThreads() {
        // The Quick-style shape: the closure is formed in a @MainActor test and called on the pool's threads. Untangle
        // serializes the deliveries, so the unsynchronized counter is safe.
        let subject = PassthroughSubject<Int, Never>()
        var received = 0
        var offMain = 0
        let cancellable = subject.sink { _ in
            received += 1
            if !Thread.isMainThread { offMain += 1 }
        }
        let iterations = 1_000
        let sent = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            DispatchQueue.concurrentPerform(iterations: iterations) { subject.send($0) }
            sent.signal()
        }
        XCTAssertEqual(sent.wait(timeout: .now() + 60), .success, "watchdog: the senders did not finish")
        XCTAssertEqual(received, iterations)
        XCTAssertEqual(offMain, iterations, "every value was delivered on a pool thread, none checked")
        cancellable.cancel()
    }

    func operatorsBeforeASinkRunOffMain() {
        let subject = PassthroughSubject<Int, Never>()
        var sum = 0
        let cancellable =
            subject
            .map { $0 * 2 }
            .filter { $0 >= 0 }
            .scan(0) { $0 + $1 }
            .sink { sum = max(sum, $0) }
        DispatchQueue.concurrentPerform(iterations: 100) { subject.send($0) }
        XCTAssertEqual(sum, 2 * (0..<100).reduce(0, +))
        cancellable.cancel()
    }

    func publishedAssignedAfterTheHop() {
        let service = PriceService()
        let model = PriceViewModel(service: service)
        service.prices.send(7)  // on the main thread: the hop still defers to the main queue
        runMain { model.label == "price 7" }
        XCTAssertEqual(model.label, "price 7")
    }
}
