/// A two-word value (a closure, an existential metatype) kept as the bits of two plain words, with the ownership of
/// what it references (a closure's context) moved into the words and back out: what lets `AnyCancellable` keep its
/// cancel closure or its target's type in one two-word slot (the owner knows which one the slot holds; Swift's
/// enums cannot share those words: a closure has no spare bits, so a two-case payload takes a 17th byte).
///
/// ```swift
/// let words = TwoWordBits.owning(closure, as: (() -> Void).self)   // the closure's context now retained by `words`
/// let action = TwoWordBits.moveOut(words, as: (() -> Void).self)   // and owned by `action` again
/// action()
/// ```
///
/// **Thread safety:** the words are a value; bits that own something must be moved out exactly once (what they
/// hold leaks if never, is released twice if twice), by whoever the owner's own protocol designates (in
/// `AnyCancellable`, the thread whose atomic exchange took its state word).
@usableFromInline
package enum TwoWordBits {
    /// The two words: a `(Int, Int)` tuple, laid out as any two-word value.
    @usableFromInline package typealias Words = (Int, Int)

    /// `value` (two words wide, at most word-aligned: checked) as words that own what it references. `type` is
    /// spelled out so that the value is stored as the type the words are read back as (an existential metatype
    /// passed without it is inferred as the concrete metatype, one word wide).
    @inlinable
    package static func owning<T>(_ value: consuming T, as type: T.Type) -> Words {
        precondition(
            MemoryLayout<T>.size == MemoryLayout<Words>.size
                && MemoryLayout<T>.alignment <= MemoryLayout<Int>.alignment,
            "TwoWordBits: \(T.self) is not two words wide")
        var words: Words = (0, 0)
        initialize(&words, with: value)
        return words
    }

    /// Takes the value that `owning` made back as the `T` it is; the caller owns it (the words no longer do).
    @inlinable
    package static func moveOut<T>(_ words: Words, as type: T.Type) -> T {
        var copy = words
        return moveOut(from: &copy, as: type)
    }

    // Pointer arguments (`&words`), as in `RetainedBits.moveOut`: `withUnsafeMutablePointer` is a call, not inlined,
    // in unspecialized callers.
    @inlinable
    static func initialize<T>(_ words: UnsafeMutableRawPointer, with value: consuming T) {
        words.initializeMemory(as: T.self, to: value)
    }

    @inlinable
    static func moveOut<T>(from words: UnsafeMutableRawPointer, as type: T.Type) -> T {
        words.assumingMemoryBound(to: T.self).move()
    }
}
