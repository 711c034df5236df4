import UntangleSync

extension Publisher {
    /// Attaches a subscriber with closure-based behavior.
    ///
    /// The sink requests `.unlimited` values. Keep the returned ``AnyCancellable``: releasing it cancels the
    /// subscription.
    ///
    /// ```swift
    /// let cancellable = [1, 2, 3].publisher.sink(
    ///     receiveCompletion: { print("completion:", $0) },
    ///     receiveValue: { print("value:", $0) })
    /// ```
    ///
    /// **Demand:** `.unlimited`, requested once when the subscription arrives.
    /// **Thread safety:** the closures are called one at a time (never concurrently), on whatever thread the upstream
    /// delivers on; `cancel()` may be called from any thread.
    @inlinable
    public func sink(
        receiveCompletion: @escaping (Subscribers.Completion<Failure>) -> Void,
        receiveValue: @escaping (Output) -> Void
    ) -> AnyCancellable {
        // @inlinable (as the operators are): subscribing from the caller's module specializes the whole chain for
        // the concrete publisher, instead of running Untangle's generic code, with runtime type lookups, per value.
        let sink = Subscribers.Sink<Output, Failure>(receiveCompletion: receiveCompletion, receiveValue: receiveValue)
        subscribe(sink)
        return AnyCancellable(sink)
    }
}

extension Publisher where Failure == Never {
    /// Attaches a subscriber with closure-based behavior to a publisher that never fails.
    ///
    /// ```swift
    /// let cancellable = Just(1).sink { print($0) }
    /// ```
    ///
    /// **Demand:** `.unlimited`.
    /// **Thread safety:** as ``Publisher/sink(receiveCompletion:receiveValue:)``.
    @inlinable
    public func sink(receiveValue: @escaping (Output) -> Void) -> AnyCancellable {
        sink(receiveCompletion: { _ in }, receiveValue: receiveValue)
    }
}

extension Subscribers {
    /// A simple subscriber that requests an unlimited number of values upon subscription.
    ///
    /// ```swift
    /// let sink = Subscribers.Sink<Int, Never>(receiveCompletion: { _ in }, receiveValue: { print($0) })
    /// subject.subscribe(sink)
    /// sink.cancel()
    /// ```
    ///
    /// After the completion, the sink releases its closures (and whatever they captured), so a sink stored by the
    /// object its closures capture does not leak once the stream ends.
    ///
    /// **Demand:** `.unlimited`, requested once; a second subscription is cancelled at once.
    /// **Thread safety:** `receive` calls come from the upstream one at a time (Untangle's publishers guarantee it);
    /// `cancel()` may be called from any thread, concurrently with delivery, any number of times; it cancels the
    /// upstream once, holding no lock (the sink's state is one atomic word).
    public final class Sink<Input, Failure: Error>: Subscriber, Cancellable, CustomStringConvertible,
        CustomReflectable, CustomPlaygroundDisplayConvertible, @unchecked Sendable
    {
        // The closures live in an immutable object that the sink holds as an unmanaged (manually retained)
        // reference. It is replaced, and the old one released, only in receive(completion:), which the upstream never
        // runs concurrently with receive(_:), so receive(_:) may borrow it without retaining it.
        //
        // Performance: a closure read from a class `var` is copied before the call (a retain and release of its
        // context: two atomic instructions, about 10 ns per value in a multi-threaded process), because the call
        // might replace the `var`; a closure in a `let` of a borrowed object is called in place. The price is one
        // more allocation per sink.
        @exclusivity(unchecked) @usableFromInline var closures: Unmanaged<SinkClosures<Input, Failure>>

        /// The closure to execute on receipt of a value (a no-op once the sink has completed). Read it from the
        /// thread that delivers to the sink, or when no completion can arrive meanwhile: the completion replaces it.
        public var receiveValue: (Input) -> Void {
            closures._withUnsafeGuaranteedRef { $0.receiveValue }
        }

        /// The closure to execute on completion (a no-op once the sink has completed); the same rule as
        /// ``receiveValue``.
        public var receiveCompletion: (Subscribers.Completion<Failure>) -> Void {
            closures._withUnsafeGuaranteedRef { $0.receiveCompletion }
        }

        // The upstream subscription: `slot` says who may touch `subscription`. It is `awaiting` until
        // receive(subscription:), `storing` while that call fills `subscription`, `subscribed` once it is there, and
        // `terminal` after a cancel or a completion. Only the thread whose atomic step leaves `storing` or
        // `subscribed` touches `subscription`: receive(subscription:) writes it while it holds `storing`; the thread
        // that exchanges `subscribed` for `terminal` takes it out (cancel() to cancel it, receive(completion:) just to
        // release it), so the subscription is cancelled at most once and never after a completion; a cancel() that
        // finds `storing` leaves the cancelling to receive(subscription:), whose `storing → subscribed` step then
        // fails. The steps are acquiring and releasing, so each access to `subscription` follows the previous one.
        //
        // Performance: no lock object per sink (a `LockedBox` is a second allocation with a 40-byte
        // `pthread_mutex_t`), and no dynamic cast of the subscription.
        @usableFromInline let slot: AtomicWord
        @exclusivity(unchecked) @usableFromInline var subscription: CancellableReference?

        /// Initializes a sink with the provided closures.
        //
        // Performance: inlinable, so that the caller's module creates the closures object with its metadata known
        // statically instead of looking it up (a hash-table search) on every subscribe.
        @inlinable
        public init(
            receiveCompletion: @escaping (Subscribers.Completion<Failure>) -> Void,
            receiveValue: @escaping (Input) -> Void
        ) {
            closures = .passRetained(SinkClosures(receiveValue: receiveValue, receiveCompletion: receiveCompletion))
            slot = AtomicWord(SinkSlot.awaiting)
        }

        deinit {
            closures.release()
        }

        /// Requests `.unlimited` from the first subscription; cancels any later one.
        public func receive(subscription: Subscription) {
            CalloutCheck.assertNoLockHeld("Sink calling its subscription")
            guard take(CancellableReference(subscription)) else {
                subscription.cancel()
                return
            }
            subscription.request(.unlimited)
        }

        /// The slot's `awaiting → storing → subscribed` steps with `upstream` stored between them. False if the sink
        /// already had a subscription or was cancelled first, or if `cancel()` ran between the steps (it then left
        /// the cancelling to this call's caller); the upstream is not kept then.
        @inlinable
        func take(_ upstream: @autoclosure () -> CancellableReference) -> Bool {
            guard slot.compareExchange(expected: SinkSlot.awaiting, desired: SinkSlot.storing) else { return false }
            subscription = upstream()
            if slot.compareExchange(expected: SinkSlot.storing, desired: SinkSlot.subscribed) {
                return true
            }
            subscription = nil
            return false
        }

        /// Takes `subscription` as the sink's upstream without calling it, for a subject whose subscription was
        /// created already delivering `.unlimited` (what `receive(subscription:)` would request). Returns false if
        /// the sink already has a subscription or was cancelled: the caller then drops `subscription` unused, which
        /// is all that `receive(subscription:)` would have done with it (cancel it). Only atomic steps on the sink's
        /// own word: no callout, so the subject may call it holding its lock.
        @inlinable
        func adoptUnlimitedSubscription<S: Subscription & AnyObject>(_ subscription: S) -> Bool {
            take(CancellableReference(object: subscription))
        }

        /// Calls `receiveValue`; returns `.none` (the sink asked for everything up front).
        @inlinable
        public func receive(_ value: Input) -> Subscribers.Demand {
            closures._withUnsafeGuaranteedRef { $0.receiveValue(value) }
            return .none
        }

        /// Calls `receiveCompletion`, then releases both closures and the subscription.
        public func receive(completion: Subscribers.Completion<Failure>) {
            if slot.exchange(SinkSlot.terminal) == SinkSlot.subscribed {
                subscription = nil
            }
            let used = closures
            used._withUnsafeGuaranteedRef { $0.receiveCompletion(completion) }
            closures = .passRetained(SinkClosures(receiveValue: { _ in }, receiveCompletion: { _ in }))
            used.release()
        }

        /// Cancels the upstream subscription (once; later calls do nothing).
        public func cancel() {
            guard slot.exchange(SinkSlot.terminal) == SinkSlot.subscribed, let subscription = subscription.take() else {
                return
            }
            CalloutCheck.assertNoLockHeld("Sink cancelling its subscription")
            subscription.cancel()
        }

        /// "Sink".
        public var description: String { "Sink" }
        /// A mirror with no children.
        public var customMirror: Mirror { Mirror(self, children: [:]) }
        /// The description.
        public var playgroundDescription: Any { description }
    }
}

/// The values of `Subscribers.Sink`'s subscription word.
@usableFromInline
enum SinkSlot {
    @inlinable static var awaiting: Int { 0 }
    @inlinable static var terminal: Int { 1 }
    @inlinable static var storing: Int { 2 }
    @inlinable static var subscribed: Int { 3 }
}

/// The closures of a `Subscribers.Sink`, immutable (see the sink).
@usableFromInline
final class SinkClosures<Input, Failure: Error> {
    @usableFromInline let receiveValue: (Input) -> Void
    @usableFromInline let receiveCompletion: (Subscribers.Completion<Failure>) -> Void

    @inlinable
    init(
        receiveValue: @escaping (Input) -> Void,
        receiveCompletion: @escaping (Subscribers.Completion<Failure>) -> Void
    ) {
        self.receiveValue = receiveValue
        self.receiveCompletion = receiveCompletion
    }
}
