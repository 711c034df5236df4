import Untangle

// Performance: a struct of two references fits an existential's inline buffer, so returning it as the `Create`
// producer's `any Cancellable` allocates nothing; the `CompositeCancellable` it replaces made five heap blocks per
// chained subscription (itself, its dictionary's storage twice, the array it was given and the sorted copy made to
// cancel in order) and took its lock twice.
/// What cancels a trait's `TraitSupport.chain`: its first subscription, then the one it continued with. Each is a
/// `SerialCancellable`, which cancels once, and cancels whatever is stored into it after that.
///
/// ```swift
/// return TraitChainTeardown(outer: outer, inner: inner)
/// ```
///
/// **Demand:** none.
/// **Thread safety:** `cancel()` from any thread; the `Create` subscription that holds it runs it once.
@usableFromInline
struct TraitChainTeardown: Cancellable {
    @usableFromInline let outer: SerialCancellable
    @usableFromInline let inner: SerialCancellable

    @inlinable
    init(outer: SerialCancellable, inner: SerialCancellable) {
        self.outer = outer
        self.inner = inner
    }

    @inlinable
    func cancel() {
        outer.cancel()
        inner.cancel()
    }
}
