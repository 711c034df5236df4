/// References without reference counting, and downcasts without a runtime check: the reference tricks of Untangle's
/// hot paths, in one place, each with the guarantee its caller must give.
///
/// ```swift
/// // `parent` is kept alive by `self` for the whole call, and nothing in it replaces `self.parent`:
/// RawReference.borrow(parent) { $0.emitter.offer(value) }
/// // `box` was made as a `Box<Base>` (the type-erasure's invariant):
/// RawReference.downcast(box, to: Box<Base>.self).base.receive(value)
/// ```
///
/// Performance: a reference read from a `var` (or an array element, or an optional) is retained around a call that
/// the compiler cannot prove leaves it in place; a borrowed one is not: two atomic instructions less per call on
/// the per-value paths (subjects, flatMap, the emitter's lock-free delivery). An unchecked downcast saves the
/// runtime's dynamic cast (a metadata comparison, more for generic classes) per call.
///
/// **Demand:** not applicable.
/// **Thread safety:** no state of its own; the borrowed object must stay alive, and the downcast object be of the
/// stated class, for the duration of the call (the caller's guarantee: a violation is undefined behaviour in release
/// builds; debug builds check the downcast).
///
/// Performance: only ``borrow(_:_:)`` is `rethrows` (`RingBuffer`'s storage access needs it); the others take
/// non-throwing bodies, as the hot paths that call them do (see `InlineOwnedState.withCriticalSection(lock:_:)`).
@usableFromInline
package enum RawReference {
    /// Calls `body` with `object` borrowed: no retain and release around the call. Something else must keep
    /// `object` alive, unchanged, for the whole call.
    @inlinable
    @inline(__always)
    package static func borrow<Object: AnyObject, Result>(
        _ object: Object, _ body: (Object) throws -> Result
    ) rethrows -> Result {
        try Unmanaged.passUnretained(object)._withUnsafeGuaranteedRef(body)
    }

    /// Calls `body` with the reference that `value` starts with, borrowed: `Value`'s first stored property is a
    /// class reference (or a struct of one reference) that is not nil while `body` runs, and the caller's protocol
    /// keeps anybody from replacing it meanwhile. The layout assumption is the caller's to test.
    @inlinable
    @inline(__always)
    package static func borrowLeadingReference<Value, Result>(
        of value: UnsafeMutablePointer<Value>, _ body: (AnyObject) -> Result
    ) -> Result {
        UnsafeRawPointer(value).load(as: Unmanaged<AnyObject>.self)._withUnsafeGuaranteedRef(body)
    }

    /// Calls `body` with each element of `buffer` in order, borrowed (the buffer's owner keeps them alive).
    @inlinable
    @inline(__always)
    package static func borrowEach<Element: AnyObject>(
        in buffer: UnsafeBufferPointer<Element>, _ body: (Element) -> Void
    ) {
        guard let base = buffer.baseAddress else { return }
        let raw = UnsafeRawPointer(base)
        for index in buffer.indices {
            raw.load(fromByteOffset: index * MemoryLayout<Element>.stride, as: Unmanaged<Element>.self)
                ._withUnsafeGuaranteedRef(body)
        }
    }

    /// `object` as a `Target`, which it must be: checked in debug builds (a trap with the two types), unchecked in
    /// release builds.
    @inlinable
    @inline(__always)
    package static func downcast<Target: AnyObject>(_ object: AnyObject, to target: Target.Type) -> Target {
        #if DEBUG
            precondition(object is Target, "RawReference.downcast: \(type(of: object)) is not a \(Target.self)")
        #endif
        return unsafeDowncast(object, to: target)
    }
}

/// A strong reference kept as `Unmanaged`: retained once when made, released once by ``release()``, and borrowed
/// (no reference counting) in between. For a reference set once and read on a hot path, where a strong `var` would
/// be retained around each call that might replace it.
///
/// ```swift
/// var entries: RetainedReference<Entries>?      // set once, before it is shared
/// entries = RetainedReference(retaining: made)
/// entries.unsafelyUnwrapped.borrow { $0.offer(value) }
/// deinit { entries?.release() }
/// ```
///
/// **Demand:** not applicable.
/// **Thread safety:** a value; ``release()`` exactly once, when nobody borrows it any more.
@usableFromInline
package struct RetainedReference<Object: AnyObject> {
    @usableFromInline let unmanaged: Unmanaged<Object>

    /// `object`, retained.
    @inlinable
    package init(retaining object: Object) {
        unmanaged = .passRetained(object)
    }

    /// Calls `body` with the object, borrowed.
    @inlinable
    @inline(__always)
    package func borrow<Result>(_ body: (Object) -> Result) -> Result {
        unmanaged._withUnsafeGuaranteedRef(body)
    }

    /// Releases the reference made by ``init(retaining:)``.
    @inlinable
    package func release() {
        unmanaged.release()
    }
}

/// A strong reference kept as the bits of an atomic word (what `AnyCancellable` and `Subscribers.Sink` store their
/// cancel target in, next to small sentinel values that no object address can equal).
///
/// ```swift
/// let word = AtomicWord(RetainedBits.retaining(object))
/// let taken = RetainedBits.take(word.exchange(0))   // the reference, released when `taken` goes
/// ```
///
/// **Demand:** not applicable.
/// **Thread safety:** the bits are a value; each retained reference must be taken or released exactly once, by the
/// thread whose atomic step removed the bits from the word.
@usableFromInline
package enum RetainedBits {
    /// `object`, retained, as a word.
    @inlinable
    package static func retaining(_ object: AnyObject) -> Int {
        Int(bitPattern: Unmanaged.passRetained(object).toOpaque())
    }

    /// Takes back the reference that `retaining` made.
    @inlinable
    package static func take(_ bits: Int) -> AnyObject {
        Unmanaged<AnyObject>.fromOpaque(UnsafeRawPointer(bitPattern: bits).unsafelyUnwrapped).takeRetainedValue()
    }

    /// Releases the reference that `retaining` made.
    @inlinable
    package static func release(_ bits: Int) {
        Unmanaged<AnyObject>.fromOpaque(UnsafeRawPointer(bitPattern: bits).unsafelyUnwrapped).release()
    }
}
