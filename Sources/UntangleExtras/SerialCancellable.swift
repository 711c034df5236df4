import Untangle
import UntangleSync

/// Holds one cancellable at a time: assigning a new one cancels the previous one. RxSwift's `SerialDisposable`.
///
/// Use it for "only the latest of these may run" work: a search request replaced by the next keystroke's, a timer
/// restarted by each event. Once the serial cancellable itself is cancelled, it cancels its current item and every
/// item assigned afterwards, at once.
///
/// ```swift
/// let search = SerialCancellable()
/// func queryChanged(_ query: String) {
///     search.cancellable = api.search(query).sink { show($0) }   // cancels the previous search
/// }
/// ```
///
/// **Thread safety:** the `cancellable` setter, ``cancel()`` and the getters may be called from any thread,
/// concurrently. The replaced (or cancelled) item is cancelled after the lock is released, on the calling thread,
/// exactly once; no call waits for another thread's cancellation.
public final class SerialCancellable: Cancellable, @unchecked Sendable {
    private struct State {
        var current: (any Cancellable)?
        var isCancelled = false
    }

    private let state = LockedBox(tracking: State())

    /// Creates an empty serial cancellable.
    public init() {}

    /// Creates a serial cancellable holding `cancellable`.
    public init(_ cancellable: any Cancellable) {
        state.withCriticalSection { $0.current = cancellable }
    }

    deinit {
        cancel()
    }

    /// The current item. Setting a new one cancels the previous one (setting `nil` just cancels it); after
    /// ``cancel()``, a newly set item is cancelled at once and the getter returns `nil`.
    public var cancellable: (any Cancellable)? {
        get { state.withCriticalSection { $0.current } }
        set { replace(with: newValue) }
    }

    /// Replaces the current item, cancelling the previous one; same as setting ``cancellable``.
    public func replace(with cancellable: (any Cancellable)?) {
        let toCancel = state.withCriticalSection { state -> (any Cancellable)? in
            if state.isCancelled {
                return cancellable
            }
            defer { state.current = cancellable }
            return state.current
        }
        CalloutCheck.assertNoLockHeld("SerialCancellable cancelling a replaced item")
        toCancel?.cancel()
    }

    /// Cancels the current item and every item set afterwards. Idempotent.
    public func cancel() {
        let toCancel = state.withCriticalSection { state -> (any Cancellable)? in
            state.isCancelled = true
            defer { state.current = nil }
            return state.current
        }
        CalloutCheck.assertNoLockHeld("SerialCancellable cancelling its item")
        toCancel?.cancel()
    }

    /// Whether ``cancel()`` was called.
    public var isCancelled: Bool {
        state.withCriticalSection { $0.isCancelled }
    }
}
