/// Where the calling thread's stack is, roughly: for a check that a loop runs in constant stack depth (compare two
/// readings taken at the same call depth).
///
/// ```swift
/// let before = StackProbe.approximateStackPointer()
/// deliverManyValues()   // records StackProbe.approximateStackPointer() inside the subscriber
/// ```
///
/// **Thread safety:** reads the calling thread's stack only.
package enum StackProbe {
    /// The address of a local variable of a function that is never inlined: close enough to the stack pointer to
    /// see the stack grow.
    @inline(never)
    package static func approximateStackPointer() -> UInt {
        var marker: UInt8 = 0
        return withUnsafeMutablePointer(to: &marker) { UInt(bitPattern: $0) }
    }
}
