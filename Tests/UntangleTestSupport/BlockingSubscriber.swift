import Dispatch
import Untangle
import UntangleSync

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A subscriber that stops inside `receive(_:)` for the values in `blockOn`, each time until the test signals
/// `release`, recording every signal (with the ``Event`` family of ``Recorder``) and the thread that delivered it:
/// for tests of what a publisher does while its subscriber is busy (a cancel from another thread, values queued
/// meanwhile, who releases the subscriber).
///
/// It requests `.unlimited` on subscription and keeps the subscription only until ``takeSubscription()`` hands it to
/// the test, so that afterwards only the subscription holds the subscriber (its release can be observed weakly).
/// `events` and `threads` are boxes the test may keep after dropping the subscriber.
package final class BlockingSubscriber: Subscriber, @unchecked Sendable {
    package let blockOn: Set<Int>
    /// Signalled each time a delivery of a value in `blockOn` starts waiting.
    package let entered = DispatchSemaphore(value: 0)
    /// Signal once per blocked delivery to let it return.
    package let release = DispatchSemaphore(value: 0)
    package let events = LockedBox<[Event<Int, Never>]>([])
    package let threads = LockedBox<[pthread_t]>([])
    private let subscriptionBox = LockedBox<Subscription?>(nil)

    package init(blockOn: Set<Int>) {
        self.blockOn = blockOn
    }

    package func receive(subscription: Subscription) {
        subscriptionBox.withLock { $0 = subscription }
        subscription.request(.unlimited)
    }

    package func receive(_ input: Int) -> Subscribers.Demand {
        events.withLock { $0.append(.value(input)) }
        threads.withLock { $0.append(pthread_self()) }
        if blockOn.contains(input) {
            entered.signal()
            _ = release.wait(timeout: .now() + 60)
        }
        return .none
    }

    package func receive(completion: Subscribers.Completion<Never>) {
        events.withLock { $0.append(.completion(completion)) }
        threads.withLock { $0.append(pthread_self()) }
    }

    /// Hands the subscription to the test and forgets it, so that only the subscription holds the subscriber.
    package func takeSubscription() -> Subscription {
        subscriptionBox.withLock { $0.take()! }
    }
}
