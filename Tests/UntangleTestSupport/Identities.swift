import Untangle

/// The identities of `subscriptions`, to compare what a state machine returned with the subscriptions a test gave
/// it: `XCTAssertEqual(identities(machine.request(.max(1))), identities(a, b))`.
package func identities(_ subscriptions: [Subscription]) -> [ObjectIdentifier] {
    subscriptions.map { ObjectIdentifier($0 as AnyObject) }
}

/// The identities of `subscriptions` (see ``identities(_:)-([Subscription])``).
package func identities(_ subscriptions: Subscription...) -> [ObjectIdentifier] {
    identities(subscriptions)
}
