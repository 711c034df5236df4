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
/// the per-value paths. An unchecked downcast saves the runtime's dynamic cast per call (measured with `as!`
/// instead: erased-map-filter-sink 276 → 454 instructions per value, subject-map-filter-sink 266 → 369,
/// flatmap-just 295 → 403).
///
/// **Thread safety:** no state of its own; the borrowed object must stay alive, and the downcast object be of the
/// stated class, for the duration of the call (the caller's guarantee: a violation is undefined behaviour in release
/// builds; debug builds check the downcast).
///
/// The tricks that depend on where a reference is stored (the emitter's borrowed load of its downstream, the
/// subject's borrowed walk over its subscriber snapshot) and the casts for types that are classes without saying so
/// are in `RawReferenceLayout.swift`.
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

/// A strong reference kept as the bits of an atomic word (what `AnyCancellable` and `Subscribers.Sink` store their
/// cancel target in, next to small sentinel values that no object address can equal).
///
/// ```swift
/// let word = AtomicWord(RetainedBits.retaining(object))
/// let taken = RetainedBits.take(word.exchange(0))   // the reference, released when `taken` goes
/// ```
///
/// **Thread safety:** the bits are a value; each retained reference must be taken or released exactly once, by the
/// thread whose atomic step removed the bits from the word.
@usableFromInline
package enum RetainedBits {
    /// `object`, retained, as a word.
    @inlinable
    package static func retaining(_ object: AnyObject) -> Int {
        Int(bitPattern: Unmanaged.passRetained(object).toOpaque())
    }

    /// `object` as a word that owns the reference the caller handed over (taken back as `retaining`'s): moved in,
    /// with no retain of its own and no release of the argument.
    ///
    /// Performance: `retaining` retains and the caller's owned argument is released after it (about 40 instructions
    /// per `sink`'s `AnyCancellable`, which gets the sink owned and keeps it).
    @inlinable
    package static func moving<T: AnyObject>(_ object: consuming T) -> Int {
        var word = 0
        moveIn(object, to: &word)
        return word
    }

    // A pointer argument (`&word`), as in `moveOut(from:as:)`.
    @inlinable
    static func moveIn<T: AnyObject>(_ object: consuming T, to word: UnsafeMutableRawPointer) {
        word.initializeMemory(as: T.self, to: object)
    }

    /// Takes back the reference that `retaining` made.
    @inlinable
    package static func take(_ bits: Int) -> AnyObject {
        Unmanaged<AnyObject>.fromOpaque(UnsafeRawPointer(bitPattern: bits).unsafelyUnwrapped).takeRetainedValue()
    }

    /// Takes back the reference that `retaining` made as the value of `T` it is (a class type, or an existential or
    /// generic parameter holding one: checked in debug builds), without a retain or release: the caller owns it.
    ///
    /// Performance: in unspecialized code (`Cancellable.cancelRetainedInstance`, generic over the cancellable's type)
    /// the word is moved out as a `T` through its address; `take(_:)` and a cast would copy it into a `T` through `T`'s
    /// value witnesses, a retain and a release more (about 55 instructions per cancel on subscribe-cancel).
    @inlinable
    package static func moveOut<T>(_ bits: Int, as type: T.Type) -> T {
        #if DEBUG
            let object = Unmanaged<AnyObject>.fromOpaque(UnsafeRawPointer(bitPattern: bits).unsafelyUnwrapped)
            precondition(object.takeUnretainedValue() is T, "RetainedBits.moveOut: the object is not a \(T.self)")
        #endif
        var word = bits
        return moveOut(from: &word, as: type)
    }

    // Passed as a pointer argument: `withUnsafeMutablePointer`, generic over `T` in unspecialized callers, was a call,
    // not inlined (about 30 instructions more per cancel).
    @inlinable
    static func moveOut<T>(from reference: UnsafeMutableRawPointer, as type: T.Type) -> T {
        reference.assumingMemoryBound(to: T.self).move()
    }

    /// Releases the reference that `retaining` made.
    @inlinable
    package static func release(_ bits: Int) {
        Unmanaged<AnyObject>.fromOpaque(UnsafeRawPointer(bitPattern: bits).unsafelyUnwrapped).release()
    }
}
