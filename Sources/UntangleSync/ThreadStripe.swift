#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// A small number that differs between threads: each thread gets the next one the first time it asks, and keeps it.
/// Striped structures use it to send different threads to different stripes, so that two threads working on one
/// structure at once rarely take the same lock.
///
/// ```swift
/// let stripe = stripes[ThreadStripe.current % stripes.count]
/// ```
///
/// Threads that ask in turn get consecutive numbers, so any `n` threads that started using stripes one after another
/// land on `n` different stripes out of `n` or more.
///
/// **Thread safety:** `current` may be read from any thread; it never blocks on another thread's callout (the first
/// read on a thread takes a lock for one increment).
@usableFromInline
package enum ThreadStripe {
    @usableFromInline
    static let key: pthread_key_t = {
        var key = pthread_key_t()
        let error = pthread_key_create(&key, nil)
        precondition(error == 0, "ThreadStripe: pthread_key_create failed with error \(error)")
        return key
    }()

    @usableFromInline
    static let next = LockedBox(0)

    /// The calling thread's number (0, 1, 2, ... in the order threads first asked).
    package static var current: Int {
        // Stored plus one, so that "not assigned yet" is the key's initial nil.
        let stored = Int(bitPattern: pthread_getspecific(key))
        if stored != 0 {
            return stored - 1
        }
        let assigned = next.withLock { value -> Int in
            defer { value &+= 1 }
            return value & Int.max
        }
        pthread_setspecific(key, UnsafeRawPointer(bitPattern: assigned + 1))
        return assigned
    }
}
