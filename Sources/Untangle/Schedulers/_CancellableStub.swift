// stub until the core lands; delete on merge
//
// The schedulers below return `Cancellable` from `schedule(after:interval:tolerance:options:_:)`. The real protocol is
// being written with the core Publisher/Subscriber types; this stub has the same shape so the two merge cleanly.

/// A protocol indicating that an activity or action supports cancellation.
///
/// ```swift
/// let timer = DispatchQueue.main.schedule(after: DispatchQueue.main.now, interval: .seconds(1)) { print("tick") }
/// timer.cancel()
/// ```
///
/// **Demand:** not applicable.
/// **Thread safety:** depends on the conforming type; every Untangle type conforming to it may be cancelled from any
/// thread, any number of times.
public protocol Cancellable {
    /// Cancels the activity.
    func cancel()
}
