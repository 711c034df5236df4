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
        XCTAssertEqual(findings(rule, in: source), ["7:10 subscription-state-outside-lock"])
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
}
