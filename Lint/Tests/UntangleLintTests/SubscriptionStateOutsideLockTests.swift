// subscription-state-outside-lock (off by default): a subscription that locks some accesses to its state and not
// others.

import UntangleLint
import XCTest

final class SubscriptionStateOutsideLockTests: XCTestCase {
    let rule = SubscriptionStateOutsideLock.description

    func testStateReadOutsideTheLockThatGuardsItIsReported() {
        let source = """
            final class Inner: Subscription {
                private var demand = Subscribers.Demand.none
                private var downstream: AnySubscriber<Int, Never>?
                func cancel() {
                    lock.sync { self.downstream = nil }
                }
                func receive(_ value: Int) {
                    guard let downstream else { return }
                    if demand > 0 { _ = downstream.receive(value) }
                }
                func request(_ demand: Subscribers.Demand) {
                    lock.lock()
                    self.demand += demand
                    lock.unlock()
                }
            }
            """
        XCTAssertEqual(findings(rule, in: source), ["9:12 subscription-state-outside-lock"])
    }

    func testEveryAccessUnderTheLockOrAParameterIsNotReported() {
        let source = """
            final class Inner: Subscription {
                private var demand = Subscribers.Demand.none
                func cancel() {
                    lock.sync { self.demand = .none }
                }
                func request(_ demand: Subscribers.Demand) {
                    precondition(demand > 0)
                    lock.lock()
                    self.demand += demand
                    lock.unlock()
                }
            }
            """
        XCTAssertEqual(findings(rule, in: source), [])
    }

    /// A method that runs with its caller's lock held says so, by its name or by asserting it owns the lock.
    func testMethodsRunUnderTheCallersLockAndReadsAreNotReported() {
        let source = """
            final class Sink: Subscriber, Cancellable {
                private let lock = UnfairLock.allocate()
                private var status = Status.waiting
                func cancel() {
                    lock.lock()
                    guard case .subscribed = status else { return lock.unlock() }
                    terminateAndConsumeLock()
                }
                private func terminateAndConsumeLock() {
                    status = .terminal
                    lock.unlock()
                }
                private func finish() {
                    lock.assertOwner()
                    status = .terminal
                }
                var isDone: Bool { if case .terminal = status { true } else { false } }
            }
            """
        XCTAssertEqual(findings(rule, in: source), [])
    }
}
