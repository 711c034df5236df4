import Untangle
import UntangleSync

/// A group of cancellables cancelled together, from which single items can also be removed by key. RxSwift's
/// `CompositeDisposable`.
///
/// Unlike ``CancelBag``, an item can leave the group before the end: ``insert(_:)`` returns a key, and
/// ``remove(for:)`` cancels that one item and forgets it (so a finished operation does not stay in a long-lived
/// group).
///
/// ```swift
/// let group = CompositeCancellable()
/// let key = group.insert(upload.sink { _ in })
/// // the upload finished early:
/// if let key { group.remove(for: key) }
/// group.cancel()    // cancels everything still inside
/// ```
///
/// **Thread safety:** every method may be called from any thread, concurrently. Items are cancelled after the lock
/// is released, each exactly once, so an item's cancellation may use the group again without deadlocking.
public final class CompositeCancellable: Cancellable, @unchecked Sendable {
    /// Identifies an item inserted into a ``CompositeCancellable``.
    ///
    /// ```swift
    /// let key = group.insert(cancellable)
    /// ```
    ///
    /// **Thread safety:** a value.
    public struct Key: Hashable, Sendable {
        fileprivate let rawValue: UInt64
    }

    private struct State {
        var items: [UInt64: any Cancellable] = [:]
        var nextKey: UInt64 = 0
        var isCancelled = false
    }

    private let state = LockedBox(tracking: State())

    /// Creates a group holding `cancellables`.
    public init(_ cancellables: [any Cancellable] = []) {
        for cancellable in cancellables {
            insert(cancellable)
        }
    }

    /// Creates a group holding the cancellables the builder lists.
    ///
    /// ```swift
    /// let group = CompositeCancellable {
    ///     a.sink { _ in }
    ///     b.sink { _ in }
    /// }
    /// ```
    public convenience init(@CancellableBuilder _ content: () -> [AnyCancellable]) {
        self.init(content())
    }

    deinit {
        cancel()
    }

    /// Adds an item; returns its key, or `nil` if the group is already cancelled (the item is then cancelled at
    /// once).
    @discardableResult
    public func insert(_ cancellable: any Cancellable) -> Key? {
        let key = state.withCriticalSection { state -> Key? in
            guard !state.isCancelled else { return nil }
            let key = state.nextKey
            state.nextKey += 1
            state.items[key] = cancellable
            return Key(rawValue: key)
        }
        if key == nil {
            CalloutCheck.assertNoLockHeld("CompositeCancellable cancelling an item inserted after cancel()")
            cancellable.cancel()
        }
        return key
    }

    /// Removes the item for `key` and cancels it. Does nothing if it was already removed or the group cancelled.
    public func remove(for key: Key) {
        let removed = state.withCriticalSection { $0.items.removeValue(forKey: key.rawValue) }
        CalloutCheck.assertNoLockHeld("CompositeCancellable cancelling a removed item")
        removed?.cancel()
    }

    /// Cancels every item (each once) and every item inserted later. Idempotent.
    public func cancel() {
        let items = state.withCriticalSection { state -> [any Cancellable] in
            state.isCancelled = true
            defer { state.items = [:] }
            return state.items.sorted { $0.key < $1.key }.map(\.value)
        }
        CalloutCheck.assertNoLockHeld("CompositeCancellable cancelling its items")
        for item in items {
            item.cancel()
        }
    }

    /// The number of items inside (0 once cancelled).
    public var count: Int {
        state.withCriticalSection { $0.items.count }
    }

    /// Whether ``cancel()`` was called.
    public var isCancelled: Bool {
        state.withCriticalSection { $0.isCancelled }
    }
}
