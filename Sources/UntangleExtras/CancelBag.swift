import Untangle
import UntangleSync

/// A thread-safe container of cancellables: the `DisposeBag` that `Set<AnyCancellable>` never was.
///
/// Any thread may insert into a bag while others insert or cancel it. Cancelling the bag (or releasing its last
/// reference) cancels every item, each exactly once, outside the bag's lock, so an item's cancellation may itself
/// touch the bag (insert into it, or cancel it again) without deadlocking. Once cancelled, the bag stays cancelled:
/// an item inserted afterwards is cancelled at once.
///
/// ```swift
/// let bag = CancelBag()
/// DispatchQueue.concurrentPerform(iterations: 1_000) { i in
///     Just(i).sink { print($0) }.store(in: bag)    // no `inout`, no `var`, no race
/// }
/// bag.cancel()
/// ```
///
/// **Demand:** not applicable (it ends subscriptions, it does not request).
/// **Thread safety:** `insert`, `store(in:)`, `cancel()`, `count` and `isCancelled` may be called from any thread,
/// concurrently. The bag is striped: it keeps four lists, each behind its own lock, and a thread inserts into the list
/// of its ``UntangleSync/ThreadStripe`` number, so threads filling one bag at once rarely wait for each other (about
/// 300 bytes per bag for this). A lock is held only to add to or take a list; cancellation runs after unlocking, and
/// no call ever waits for another thread's cancellation to finish.
public final class CancelBag: Cancellable, Sendable {
    private struct State {
        var items: [AnyCancellable] = []
        var isCancelled = false
    }

    // Every stripe starts open; cancel() closes them one after another and takes their items. An insert racing it
    // either lands in a stripe not yet closed (and is taken and cancelled when cancel() reaches it) or finds its
    // stripe closed (and cancels the item itself), so once cancel() has returned every item is cancelled.
    private let stripes: [LockedBox<State>]
    private static let stripeCount = 4

    /// Creates an empty bag.
    public init() {
        stripes = (0..<Self.stripeCount).map { _ in LockedBox(tracking: State()) }
    }

    deinit {
        cancel()
    }

    /// Adds a cancellable; if the bag is already cancelled, cancels it at once instead.
    ///
    /// - Complexity: amortized O(1).
    public func insert(_ cancellable: AnyCancellable) {
        let stripe = stripes[ThreadStripe.current % Self.stripeCount]
        let accepted = stripe.withCriticalSection { state -> Bool in
            guard !state.isCancelled else { return false }
            state.items.append(cancellable)
            return true
        }
        if !accepted {
            CalloutCheck.assertNoLockHeld("CancelBag cancelling an item inserted after cancel()")
            cancellable.cancel()
        }
    }

    /// Cancels every item (each once, outside the lock) and empties the bag. Later inserts are cancelled at once.
    /// Idempotent.
    ///
    /// - Complexity: O(n) in the number of items.
    public func cancel() {
        for stripe in stripes {
            let items = stripe.withCriticalSection { state -> [AnyCancellable] in
                state.isCancelled = true
                defer { state.items = [] }
                return state.items
            }
            CalloutCheck.assertNoLockHeld("CancelBag cancelling its items")
            for item in items {
                item.cancel()
            }
        }
    }

    /// The number of items held (0 once cancelled). While other threads insert, it counts each stripe at a slightly
    /// different moment.
    public var count: Int {
        stripes.reduce(0) { total, stripe in total + stripe.withCriticalSection { $0.items.count } }
    }

    /// Whether ``cancel()`` has been called (or the bag is being deinitialized).
    public var isCancelled: Bool {
        // cancel() closes the first stripe first.
        stripes[0].withCriticalSection { $0.isCancelled }
    }
}

extension Cancellable {
    /// Stores this cancellable in a ``CancelBag``; safe from any thread, no `inout` needed.
    ///
    /// ```swift
    /// subject.sink { print($0) }.store(in: bag)
    /// ```
    public func store(in bag: CancelBag) {
        if let cancellable = self as? AnyCancellable {
            bag.insert(cancellable)
        } else {
            bag.insert(AnyCancellable(self))
        }
    }
}
