/// A strong reference whose retain and release are explicit, read without reference counting: what an object keeps
/// in a `var` it sets once and reads on every value (a strong `var` would be retained and released around each call
/// that the compiler cannot prove leaves it in place).
///
/// ```swift
/// var entries: RetainedReference<Entries>?         // one reference wide
/// entries = RetainedReference(retaining: made)      // set once, before the holder is published
/// entries.unsafelyUnwrapped.withBorrowed { $0.offer(value) }
/// entries?.release()                                // in the holder's deinit
/// ```
///
/// Every member is inlined, so a generic holder's unspecialized code (its deinit, its witnesses) needs no metadata
/// of this type.
///
/// **Thread safety:** a value; the holder orders the one write before every read (e.g. under its lock, before it is
/// published), and releases it exactly once, after the last read.
@frozen
@usableFromInline
package struct RetainedReference<Object: AnyObject> {
    @usableFromInline let reference: Unmanaged<Object>

    /// Retains `object`; ``release()`` gives the retain back.
    @inlinable
    @inline(__always)
    package init(retaining object: Object) {
        reference = .passRetained(object)
    }

    /// Gives back the retain that ``init(retaining:)`` took (once).
    @inlinable
    @inline(__always)
    package func release() {
        reference.release()
    }

    /// Calls `body` with the object borrowed: no retain and release around the call (this reference keeps it).
    //
    // Not `rethrows`, and `body` is called from a closure literal rather than passed on to the (rethrowing) borrow:
    // a closure passed on as it is is converted to a throwing function type, and the optimizer then stops inlining
    // it (see "Raw memory" in Benchmarks/README.md).
    @inlinable
    @inline(__always)
    package func withBorrowed<Result>(_ body: (Object) -> Result) -> Result {
        reference._withUnsafeGuaranteedRef { body($0) }
    }
}
