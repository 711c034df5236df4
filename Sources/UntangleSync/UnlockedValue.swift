/// A value that the calling thread may read in place without the lock, because the owner's protocol (an owner word,
/// for example) has made it the value's only writer: what an emitter storage's `withUnlockedValue` hands out. It is
/// the value's address, with read access to the value and to the object reference stored at its start.
///
/// ```swift
/// storage.withUnlockedValue { machine in
///     machine.borrowLeadingObject { downstream in deliver(to: downstream, isSink: machine.pointee.isSink) }
/// }
/// ```
///
/// **Thread safety:** none of its own: valid only while the owner's protocol admits the calling thread, and only as
/// long as the holder of the value lives (the caller's guarantee).
@frozen
@usableFromInline
package struct UnlockedValue<Value> {
    @usableFromInline let address: UnsafeMutablePointer<Value>

    /// The value at `address` (initialized, and at a fixed address while the view is used).
    @inlinable
    @inline(__always)
    package init(_ address: UnsafeMutablePointer<Value>) {
        self.address = address
    }

    /// The value, read in place.
    @inlinable
    package var pointee: Value {
        @inline(__always)
        unsafeAddress { UnsafePointer(address) }
    }

    /// Calls `body` with the object reference stored in the value's first bytes, borrowed (see
    /// ``RawReference/borrowLeadingObject(of:_:)``).
    @inlinable
    @inline(__always)
    package func borrowLeadingObject<Result>(_ body: (AnyObject) -> Result) -> Result {
        RawReference.borrowLeadingObject(of: address) { body($0) }
    }
}
