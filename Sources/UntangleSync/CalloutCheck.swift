#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Debug-build bookkeeping of the library locks held by the current thread.
///
/// Every library critical section (``Lock/withCriticalSection(_:)``) increments a thread-local count on entry and
/// decrements it on exit; every point where the library calls out (a subscriber's `receive`, an upstream `request` or
/// `cancel`, a user closure) asserts the count is zero. Tests run in debug, so the whole suite checks the rule
/// "no callout under a library lock". In release builds every method compiles to nothing.
///
/// **Thread safety:** the count is per thread; every method may be called from any thread.
@usableFromInline
package enum CalloutCheck {
    #if DEBUG
        @usableFromInline
        static let key: pthread_key_t = {
            var key = pthread_key_t()
            let error = pthread_key_create(&key, nil)
            precondition(error == 0, "CalloutCheck: pthread_key_create failed with error \(error)")
            return key
        }()

        @usableFromInline
        static var count: Int {
            get { Int(bitPattern: pthread_getspecific(key)) }
            set { pthread_setspecific(key, UnsafeRawPointer(bitPattern: newValue)) }
        }
    #endif

    /// The number of library critical sections the calling thread is inside (always 0 in release builds).
    @inlinable
    package static var heldByCurrentThread: Int {
        #if DEBUG
            return count
        #else
            return 0
        #endif
    }

    @inlinable
    package static func enter() {
        #if DEBUG
            count += 1
        #endif
    }

    @inlinable
    package static func leave() {
        #if DEBUG
            count -= 1
        #endif
    }

    /// Stops a debug build if the calling thread holds a library lock: a callout is about to happen.
    @inlinable
    package static func assertNoLockHeld(
        _ callout: @autoclosure () -> String = "a callout",
        file: StaticString = #fileID,
        line: UInt = #line
    ) {
        #if DEBUG
            if count != 0 {
                preconditionFailure(
                    "Untangle threading contract: \(callout()) while holding \(count) library lock(s). "
                        + "Decide under the lock, act after unlocking.",
                    file: file,
                    line: line
                )
            }
        #endif
    }
}
