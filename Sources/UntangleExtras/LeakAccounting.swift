import Dispatch
import UntangleSync

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Leak accounting for Untangle's own objects, in the spirit of RxSwift's `Resources.total`.
///
/// In debug builds every subscription, subject and stateful helper that Untangle creates holds a counted state cell;
/// ``total`` is how many are alive. Read it before and after a scenario: once everything the scenario created has been
/// cancelled or completed and released, the count is back where it was. Unlike RxSwift's, the count needs no special
/// build flag and is exact (no sampling): it is maintained at allocation and deallocation of the library's state.
/// Release builds do not count (``total`` is 0 and ``isCounting`` false). `Subscribers.Sink` and `AnyCancellable`
/// keep their state in an atomic word, not in a counted cell, so they are not counted themselves; a sink kept alive by
/// a leaked subscription still shows up through that subscription's cell.
///
/// ```swift
/// let before = Resources.total
/// var cancellable: AnyCancellable? = subject.map { $0 * 2 }.sink { print($0) }
/// cancellable = nil
/// assert(Resources.total == before)
/// ```
///
/// **Thread safety:** may be read from any thread; objects released concurrently on other threads (for example by a
/// queue that still holds a scheduled action) are counted until they are actually released, so wait for that work
/// before comparing (see ``waitForTotal(atMost:timeout:)``).
public enum Resources {
    /// The number of live library objects' state cells (0 in release builds).
    public static var total: Int { LiveObjects.count }

    /// Whether this build counts (debug builds do).
    public static var isCounting: Bool {
        #if DEBUG
            return true
        #else
            return false
        #endif
    }

    /// Waits (polling, at most `timeout` seconds) until ``total`` is at most `limit`; returns whether it got there.
    ///
    /// Use it where releases finish on other threads (queues, timers) after the scenario itself returned.
    public static func waitForTotal(atMost limit: Int, timeout: Double = 5) -> Bool {
        let deadline = DispatchTime.now().uptimeNanoseconds + UInt64(max(0, timeout) * 1e9)
        while total > limit {
            if DispatchTime.now().uptimeNanoseconds >= deadline { return false }
            // A bounded poll, not synchronization: releases on other threads cannot be awaited otherwise.
            usleep(1_000)
        }
        return true
    }
}
