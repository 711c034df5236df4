import Foundation
import UntangleSync
import UntangleTestSupport
import UntangleTesting
import XCTest

@testable import Untangle

/// The skeleton of the scheduler operators (debounce, throttle, timeout), driven directly with a small machine.
final class ScheduledShellTests: XCTestCase {
    /// A machine that keeps the timer of its current generation and passes returned demand to its upstream.
    private struct GenerationMachine: ScheduledTimerStateMachine {
        var generation = 0
        var armed: Cancellable?
        var upstream = UpstreamSlot.awaiting

        func downstreamReturned(_ demand: Subscribers.Demand) -> Subscription? {
            upstream.subscription
        }

        mutating func timerArmed(_ timer: Cancellable, generation armedFor: Int) -> Cancellable? {
            guard armedFor == generation else { return timer }
            armed = timer
            return nil
        }
    }

    /// An upstream subscription and a timer that write what is done to them into one shared log.
    private final class Spy: Subscription, Cancellable, @unchecked Sendable {
        let name: String
        let log: SpyLog
        let combineIdentifier = CombineIdentifier()

        init(_ name: String, log: SpyLog) {
            self.name = name
            self.log = log
        }

        func request(_ demand: Subscribers.Demand) { log.append("\(name) request \(demand)") }
        func cancel() { log.append("\(name) cancel") }
    }

    private final class SpyLog: @unchecked Sendable {
        private let lock = Lock()
        private var _entries: [String] = []
        var entries: [String] { lock.withLock { _entries } }
        func append(_ entry: String) { lock.withLock { _entries.append(entry) } }
    }

    private typealias Shell = ScheduledShell<Recorder<Int, Never>, GenerationMachine, TestScheduler>

    private func makeShell(_ downstream: Recorder<Int, Never>, scheduler: TestScheduler, generation: Int = 0) -> Shell {
        let shell = Shell(
            downstream: downstream, machine: GenerationMachine(generation: generation), scheduler: scheduler,
            options: nil)
        shell.start(subscription: Subscriptions.empty)
        return shell
    }

    func testATimerArmedForAGenerationThatMovedOnIsCancelledAtOnceAndNeverFires() {
        let scheduler = TestScheduler()
        let shell = makeShell(Recorder(), scheduler: scheduler, generation: 2)
        let fired = SpyLog()
        shell.armTimer(after: .seconds(1), generation: 1, keepingAlive: ()) { fired.append("fired \($0)") }
        XCTAssertEqual(scheduler.scheduledActionCount, 0, "the stale timer stays scheduled")
        scheduler.advance(by: .seconds(3))
        XCTAssertEqual(fired.entries, [])
    }

    func testATimerArmedForTheCurrentGenerationIsKeptAndRepeatsWithItsGeneration() {
        let scheduler = TestScheduler()
        let shell = makeShell(Recorder(), scheduler: scheduler, generation: 2)
        let fired = SpyLog()
        shell.armTimer(after: .seconds(1), generation: 2, keepingAlive: ()) { fired.append("fired \($0)") }
        scheduler.advance(by: .seconds(2))
        XCTAssertEqual(fired.entries, ["fired 2", "fired 2"])
        XCTAssertNotNil(shell.withCriticalSection { $0.armed })
        shell.withCriticalSection { $0.armed }?.cancel()
    }

    func testPerformCancelsTheTimerThenTheUpstreamThenDeliversTheValueAndTheCompletion() {
        let log = SpyLog()
        let downstream = Recorder<Int, Never>(onValue: { _, value in
            log.append("value \(value)")
            return .none
        })
        let shell = makeShell(downstream, scheduler: TestScheduler())
        shell.perform(
            ScheduledEffects(
                released: Spy("released", log: log), timer: Spy("timer", log: log),
                upstream: Spy("upstream", log: log), value: 1, completion: .finished))
        XCTAssertEqual(log.entries, ["timer cancel", "upstream cancel", "value 1"])
        XCTAssertEqual(downstream.values, [1])
        XCTAssertEqual(downstream.completions.count, 1)
    }

    func testDemandTheDownstreamReturnsIsRequestedFromTheSubscriptionTheMachineNames() {
        let log = SpyLog()
        let downstream = Recorder<Int, Never>(onValue: { _, _ in .max(2) })
        let shell = makeShell(downstream, scheduler: TestScheduler())
        let upstream = Spy("upstream", log: log)
        XCTAssertTrue(shell.withCriticalSection { $0.upstream.accept(upstream) })
        shell.perform(ScheduledEffects(value: 1))
        XCTAssertEqual(log.entries, ["upstream request max(2)"])
    }

    func testCancelStopsTheDownstreamEvenWhenTheMachineHadAlreadyEnded() {
        let downstream = Recorder<Int, Never>()
        let shell = makeShell(downstream, scheduler: TestScheduler())
        shell.cancel { _ in nil }
        shell.perform(ScheduledEffects(value: 1, completion: .finished))
        XCTAssertEqual(downstream.values, [])
        XCTAssertEqual(downstream.completions.count, 0)
    }
}
