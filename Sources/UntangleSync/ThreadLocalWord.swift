#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// An `Int` per thread, 0 on a thread that has not set it: a `pthread_key_t` whose per-thread pointer holds the
/// integer's bits (no allocation per thread, nothing to free when the thread ends).
///
/// ```swift
/// static let number = ThreadLocalWord()
/// if number.value == 0 { number.value = nextNumber() }
/// ```
///
/// **Thread safety:** each thread reads and writes its own value; the key is created once, by the initializer.
package struct ThreadLocalWord: Sendable {
    let key: pthread_key_t

    /// A new key (never deleted: keep the word in a `static let`). Traps if the system has no key left.
    package init() {
        var key = pthread_key_t()
        let error = pthread_key_create(&key, nil)
        precondition(error == 0, "ThreadLocalWord: pthread_key_create failed with error \(error)")
        self.key = key
    }

    /// The calling thread's value (0 until the thread sets it).
    package var value: Int {
        get { Int(bitPattern: pthread_getspecific(key)) }
        nonmutating set { pthread_setspecific(key, UnsafeRawPointer(bitPattern: newValue)) }
    }
}
