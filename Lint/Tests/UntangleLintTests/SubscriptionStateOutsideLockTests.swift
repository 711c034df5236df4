// subscription-state-outside-lock: a subscription that locks some accesses to its state and not others.

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

    /// OpenCombine's `Sequence`, `Record` and `SwitchToLatest` unlock to call out and lock again inside a loop or an
    /// `if`: what follows is under the lock again.
    func testStateUsedAfterTheLockIsTakenAgainIsNotReported() {
        let source = """
            final class Inner: Subscription {
                private var pendingDemand = Subscribers.Demand.none
                private var downstream: AnySubscriber<Int, Never>?
                func request(_ demand: Subscribers.Demand) {
                    lock.lock()
                    pendingDemand += demand
                    while let downstream = self.downstream, pendingDemand > 0 {
                        if let current = next {
                            pendingDemand -= 1
                            lock.unlock()
                            let more = downstream.receive(current)
                            lock.lock()
                            pendingDemand += more
                        }
                        if next == nil {
                            self.downstream = nil
                            lock.unlock()
                            return
                        }
                    }
                    lock.unlock()
                }
                func cancel() {
                    lock.sync { downstream = nil }
                }
            }
            """
        XCTAssertEqual(findings(rule, in: source), [])
    }

    /// OpenCombine's `FlatMap.request` (a path that holds another lock) and `Scan` (no lock, as in Combine) say so.
    func testAnAccessWhoseMethodDocumentsItsLockingIsNotReported() {
        let source = """
            final class Inner: Subscription {
                private var demand = Subscribers.Demand.none
                func request(_ demand: Subscribers.Demand) {
                    if recursive {
                        // recursive being true means that downstreamLock is already acquired.
                        self.demand += demand
                        return
                    }
                    lock.lock()
                    self.demand += demand
                    lock.unlock()
                }
                func cancel() {}
            }
            """
        XCTAssertEqual(findings(rule, in: source), [])
    }

    /// Untangle's own subscriptions keep their state in a box that locks itself: `state.withCriticalSection { }` is
    /// the locked access, not a use outside the lock.
    func testABoxUsedThroughItsLockingVerbIsNotReported() {
        let source = """
            final class Inner: Subscription {
                private let state = LockedBox(State())
                func request(_ demand: Subscribers.Demand) {
                    let start = state.withCriticalSection { state in
                        state.demand += demand
                        return state.demand > 0
                    }
                    if start { run() }
                }
                func cancel() {
                    self.state.withCriticalSection { $0.downstream = nil }
                }
            }
            """
        XCTAssertEqual(findings(rule, in: source), [])
    }

    func testTheRuleIsOnByDefault() {
        XCTAssertTrue(rule.enabledByDefault)
    }
}
