import Untangle

/// What an ``EventOperatorSubscription`` does with one upstream signal.
///
/// **Demand:** `.emit` uses one unit of downstream demand (the downstream's returned demand goes upstream);
/// `.skip` asks upstream for one more value; `.absorb` asks for nothing; `.end`'s last value waits for demand.
/// **Thread safety:** a value.
enum EventReaction<Output, Failure: Error> {
    /// Deliver this value.
    case emit(Output)
    /// Deliver nothing and ask upstream for one more value in its place (pass-through demand only).
    case skip
    /// Deliver nothing and ask for nothing (the operator keeps the value in its own state).
    case absorb
    /// Deliver `last` (if any, when demand allows), then `completion`; an upstream still running is cancelled.
    case end(last: Output?, Subscribers.Completion<Failure>)
}

/// How an ``EventOperatorSubscription`` asks its upstream for values.
///
/// **Demand:** see each case.
/// **Thread safety:** a value.
enum EventUpstreamDemand: Sendable {
    /// Every downstream request goes upstream unchanged (one upstream value per downstream value).
    case passThrough
    /// `.unlimited` once, when the downstream first requests anything (operators that reduce the upstream).
    case unlimitedOnFirstRequest
    /// `.unlimited` right after the downstream got its subscription, whatever it requests (operators with no
    /// values, which must see the upstream's values to reject them).
    case unlimitedAtSubscription
}
