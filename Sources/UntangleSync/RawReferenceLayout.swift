// The reference tricks that depend on where a reference is stored (at the start of a value, in an array's
// elements) or on a type that is a class without saying so: ``RawReference``'s other half.
//
// Performance: none of these helpers is `rethrows`, each is always inlined, and each calls the caller's closure from
// a closure literal of its own (`{ body($0) }`) instead of passing it on to the rethrowing
// `_withUnsafeGuaranteedRef`: passed on as it is, a closure is converted to a throwing function type and the
// optimizer stops inlining it (measured: +23.5 instructions per value on subject-map-filter-sink for the emitter's
// load, +14 for the subject's walk; see "Raw memory" in Benchmarks/README.md).
extension RawReference {
    /// Calls `body` with the object reference stored in the first bytes of the value at `value`, borrowed (no
    /// retain and release). The value's first stored property must be a non-nil object reference (or a struct
    /// that starts with one), which something else keeps alive and in place for the whole call.
    ///
    /// ```swift
    /// struct Machine { var downstream: AnyObject; var count: Int }
    /// RawReference.borrowLeadingObject(of: machineAddress) { ($0 as! Sink).receive(1) }
    /// ```
    @inlinable
    @inline(__always)
    package static func borrowLeadingObject<Value, Result>(
        of value: UnsafeMutablePointer<Value>, _ body: (AnyObject) -> Result
    ) -> Result {
        UnsafeRawPointer(value).load(as: Unmanaged<AnyObject>.self)._withUnsafeGuaranteedRef { body($0) }
    }

    /// Calls `body` with each element of `array`, in order, borrowed: the array keeps them alive (the caller must
    /// keep the array alive and unchanged for the whole call), so no element is retained and released.
    ///
    /// ```swift
    /// let snapshot = subscribers           // a copy taken under the lock
    /// RawReference.forEachBorrowed(in: snapshot) { $0.offer(value) }
    /// ```
    @inlinable
    @inline(__always)
    package static func forEachBorrowed<Object: AnyObject>(in array: [Object], _ body: (Object) -> Void) {
        array.withUnsafeBufferPointer { buffer in
            guard let base = buffer.baseAddress else { return }
            let raw = UnsafeRawPointer(base)
            for index in buffer.indices {
                raw.load(fromByteOffset: index * MemoryLayout<Object>.stride, as: Unmanaged<Object>.self)
                    ._withUnsafeGuaranteedRef { body($0) }
            }
        }
    }

    /// Whether a value of type `T` may be a single class reference (one word wide, and a type that can be a class):
    /// once specialized, `false` at compile time for every type that is not one, so a check built on it costs
    /// nothing there.
    ///
    /// ```swift
    /// if RawReference.mayBeClassReference(Downstream.self) && Downstream.self == Sink.self { ... }
    /// ```
    @inlinable
    @inline(__always)
    package static func mayBeClassReference<T>(_ type: T.Type) -> Bool {
        MemoryLayout<T>.size == MemoryLayout<AnyObject>.size && _canBeClass(T.self) != 0
    }

    /// `value`, of a generic type that the caller has found to be a class (`T.self is AnyClass`), as an object
    /// reference: no box, no runtime cast. Checked in debug builds.
    ///
    /// ```swift
    /// if C.self is AnyClass { stored = RawReference.object(cancellable) }
    /// ```
    @inlinable
    @inline(__always)
    package static func object<T>(_ value: T) -> AnyObject {
        #if DEBUG
            precondition(T.self is AnyClass, "RawReference.object: \(T.self) is not a class")
        #endif
        return unsafeBitCast(value, to: AnyObject.self)
    }

    /// `object` as a `T`, a type that is not declared a class but is one here (the caller's invariant: `object` was
    /// made by ``object(_:)`` from a `T`). Checked in debug builds.
    ///
    /// ```swift
    /// RawReference.instance(stored, as: C.self).cancel()
    /// ```
    @inlinable
    @inline(__always)
    package static func instance<T>(_ object: AnyObject, as type: T.Type) -> T {
        #if DEBUG
            precondition(object is T, "RawReference.instance: \(Swift.type(of: object)) is not a \(T.self)")
        #endif
        return unsafeBitCast(object, to: type)
    }
}
