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
/// **Thread safety:** `insert`, `store(in:)`, `cancel()`, `count` and `isCancelled` may be called from any thread,
/// concurrently. The bag is striped: it keeps four lists, each behind its own lock, and a thread inserts into the list
/// of its thread-stripe number, so threads filling one bag at once rarely wait for each other (about
/// 300 bytes per bag for this). A lock is held only to add to or take a list; cancellation runs after unlocking, and
/// no call ever waits for another thread's cancellation to finish.
public final class CancelBag: Cancellable, Sendable {
    // `closed` is set by the first cancel() before it takes any stripe's items, and every insert reads it under
    // its stripe's lock. An insert that reads it clear appended before cancel() reached that stripe (cancel() takes
    // each stripe's lock after setting it), so cancel() takes the item; an insert that reads it set cancels the item
    // itself. A thread that has seen `isCancelled` (the same word) therefore always has its later inserts cancelled
    // at once, as with a single lock. (`untangle stress` caught a version that closed the stripes one by one: an
    // insert into a stripe not reached yet, after `isCancelled` was already true, was cancelled only later.)
    private let closed = AtomicWord(0)
    private let stripes: [LockedBox<[AnyCancellable]>]
    private static let stripeCount = 4

    /// Creates an empty bag.
    public init() {
        stripes = (0..<Self.stripeCount).map { _ in LockedBox(tracking: []) }
    }

    deinit {
        cancel()
    }

    /// Adds a cancellable; if the bag is already cancelled, cancels it at once instead.
    ///
    /// - Complexity: amortized O(1).
    public func insert(_ cancellable: AnyCancellable) {
        let stripe = stripes[ThreadStripe.current % Self.stripeCount]
        let accepted = stripe.withCriticalSection { items -> Bool in
            guard closed.load() == 0 else { return false }
            items.append(cancellable)
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
        _ = closed.exchange(1)
        for stripe in stripes {
            let items = stripe.withCriticalSection { items -> [AnyCancellable] in
                defer { items = [] }
                return items
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
        stripes.reduce(0) { total, stripe in total + stripe.withCriticalSection { $0.count } }
    }

    /// Whether ``cancel()`` has been called (or the bag is being deinitialized).
    public var isCancelled: Bool {
        closed.load() != 0
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
