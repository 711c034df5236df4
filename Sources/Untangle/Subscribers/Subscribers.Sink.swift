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
    ///
    ///
    /// ```swift
    /// @MainActor final class ViewModel {
    ///     @Published var count = 0
    ///     var cancellables = Set<AnyCancellable>()
    ///     init(events: PassthroughSubject<Int, Never>) {   // sent from any thread
    ///         events
    ///             .receive(on: DispatchQueue.main)         // deliver on the main actor's thread
    ///             .sink { [weak self] in self?.count += $0 }
    ///             .store(in: &cancellables)
    ///     }
    /// }
    /// ```
    @inlinable
    public func sink(
        receiveCompletion: @escaping (Subscribers.Completion<Failure>) -> Void,
        receiveValue: @escaping (Output) -> Void
    ) -> AnyCancellable {
        // @inlinable (as the operators are): subscribing from the caller's module specializes the whole chain for
        // the concrete publisher, instead of running Untangle's generic code, with runtime type lookups, per value.
        let sink = Subscribers.Sink<Output, Failure>(
            receiveCompletion: receiveCompletion, receiveValue: receiveValue)
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
        let sink = Subscribers.Sink<Output, Failure>(
            closures: SinkClosures(receiveValue: receiveValue, receiveCompletion: { _ in }))
        subscribe(sink)
        return AnyCancellable(sink)
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
    /// **Thread safety:** `receive` calls come from the upstream one at a time, and `receive(completion:)` never from
    /// inside `receive(_:)` (the Reactive Streams rule that signals are serial; Untangle's publishers guarantee it: a
    /// completion sent during a delivery waits until the delivery returns). A publisher of your own must keep that
    /// rule: the completion releases the closures, which must not happen while one of them runs. `cancel()` may be
    /// called from any thread, concurrently with delivery, any number of times; it cancels the upstream once, holding
    /// no lock (the sink's state is one atomic word).
    public final class Sink<Input, Failure: Error>: Subscriber, Cancellable, CustomStringConvertible,
        CustomReflectable, CustomPlaygroundDisplayConvertible, @unchecked Sendable
    {
        // The closures live inline, in a noncopyable struct that the sink replaces (releasing what they captured)
        // only in receive(completion:), which the upstream never runs concurrently with receive(_:) nor from inside
        // it (an emitter holds a completion that arrives during a delivery until the delivery returns).
        //
        // Performance: a closure read from a class `var` is copied before the call (a retain and release of its
        // context: two atomic instructions, about 10 ns per value in a multi-threaded process), because the call
        // might replace the `var`. A noncopyable struct cannot be copied, so `receive(_:)` borrows it in place and
        // calls the closure with no reference counting, as from a `let`; and the closures cost no allocation of
        // their own (a separate immutable object did the same job for 64 more bytes per sink).
        @exclusivity(unchecked) @usableFromInline var closures: SinkClosures<Input, Failure>

        /// The closure to execute on receipt of a value (a no-op once the sink has completed). Read it from the
        /// thread that delivers to the sink, or when no completion can arrive meanwhile: the completion replaces it.
        public var receiveValue: (Input) -> Void {
            closures.receiveValue
        }

        /// The closure to execute on completion (a no-op once the sink has completed); the same rule as
        /// ``receiveValue``.
        public var receiveCompletion: (Subscribers.Completion<Failure>) -> Void {
            closures.receiveCompletion
        }

        // The upstream subscription, in one atomic word: `awaiting` until receive(subscription:), `storing` while
        // that call fills `upstreamType`, then the subscription itself (a retained reference, or the box of a value
        // type, see `CancellableReference`), and `terminal` after a cancel or a completion. Only the thread whose
        // atomic step takes the reference out of the word uses it: cancel() to cancel it, receive(completion:) just
        // to release it; so the subscription is cancelled at most once and never after a completion. A cancel() that
        // finds `storing` leaves the cancelling to receive(subscription:), whose `storing → reference` step then
        // fails. The steps are acquiring and releasing, so `upstreamType`, written before the reference is
        // published, is seen by whoever takes the reference out.
        //
        // Memory: no lock object per sink (a `LockedBox` is a second allocation with a 40-byte `pthread_mutex_t`),
        // and the reference shares the state's word: the sink is 72 bytes with its closures inline (an 80-byte
        // allocation).
        @usableFromInline let upstream: AtomicWord
        @exclusivity(unchecked) @usableFromInline var upstreamType: any Cancellable.Type

        /// Initializes a sink with the provided closures.
        //
        // Performance: inlinable, so that the caller's module creates the sink with its metadata known statically
        // instead of looking it up (a hash-table search) on every subscribe.
        @inlinable
        public init(
            receiveCompletion: @escaping (Subscribers.Completion<Failure>) -> Void,
            receiveValue: @escaping (Input) -> Void
        ) {
            closures = SinkClosures(receiveValue: receiveValue, receiveCompletion: receiveCompletion)
            upstream = AtomicWord(SinkUpstream.awaiting)
            upstreamType = Sink.self  // unused until a reference is in `upstream`
        }

        @inlinable
        init(closures: consuming SinkClosures<Input, Failure>) {
            self.closures = closures
            upstream = AtomicWord(SinkUpstream.awaiting)
            upstreamType = Sink.self
        }

        deinit {
            SinkUpstream.release(upstream.load())
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

        /// The word's `awaiting → storing → reference` steps with `reference`'s type stored between them. False if
        /// the sink already had a subscription or was cancelled first, or if `cancel()` ran between the steps (it then
        /// left the cancelling to this call's caller); the reference is not kept then.
        @inlinable
        func take(_ reference: @autoclosure () -> CancellableReference) -> Bool {
            guard upstream.compareExchange(expected: SinkUpstream.awaiting, desired: SinkUpstream.storing) else {
                return false
            }
            let reference = reference()
            upstreamType = reference.type
            let bits = RetainedBits.retaining(reference.object)
            if upstream.compareExchange(expected: SinkUpstream.storing, desired: bits) {
                return true
            }
            SinkUpstream.release(bits)
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
            closures.receive(value)
            return .none
        }

        /// Releases the subscription, calls `receiveCompletion`, then releases both closures. A completion that
        /// arrives after `cancel()` (also from inside the upstream's `cancel()`), from inside `receiveCompletion`, or
        /// from the release of what the closures captured, is ignored.
        public func receive(completion: Subscribers.Completion<Failure>) {
            // `terminal` means a cancel() or a completion came first. After a completion the closures are no-ops
            // already; after a cancel() they are kept (see `closures`), so they must not be called: Combine's sink
            // drops its closures at cancel(), and an upstream that finishes from inside its own cancel() (or late)
            // reaches nothing.
            let previous = upstream.exchange(SinkUpstream.terminal)
            guard previous != SinkUpstream.terminal else { return }
            SinkUpstream.release(previous)
            // The closures are taken out before the call (as in Combine): a completion sent from inside
            // `receiveCompletion` finds the no-ops. They are released after the call, when the sink no longer touches
            // `closures`: their release may run user code that completes this sink again (an object the closures
            // captured sending a completion from its deinit).
            let receiveCompletion = closures.receiveCompletion
            let receiveValue = closures.receiveValue
            closures = SinkClosures(receiveValue: { _ in }, receiveCompletion: { _ in })
            receiveCompletion(completion)
            withExtendedLifetime(receiveValue) {}
        }

        /// Cancels the upstream subscription (once; later calls do nothing).
        public func cancel() {
            let bits = upstream.exchange(SinkUpstream.terminal)
            guard SinkUpstream.isReference(bits) else { return }
            CalloutCheck.assertNoLockHeld("Sink cancelling its subscription")
            // The retain taken with the subscription goes with the call (released after its `cancel()`).
            CancellableReference.cancel(retained: bits, as: upstreamType)
        }

        /// "Sink".
        public var description: String { "Sink" }
        /// A mirror with no children.
        public var customMirror: Mirror { Mirror(self, children: [:]) }
        /// The description.
        public var playgroundDescription: Any { description }
    }
}

/// The values of `Subscribers.Sink`'s upstream word other than a reference (object addresses are never this small).
@usableFromInline
enum SinkUpstream {
    @inlinable static var awaiting: Int { 0 }
    @inlinable static var terminal: Int { 1 }
    @inlinable static var storing: Int { 2 }

    /// Whether `bits` is a retained reference rather than one of the states above.
    @inlinable
    static func isReference(_ bits: Int) -> Bool {
        bits != awaiting && bits != terminal && bits != storing
    }

    /// Releases the reference in `bits`, if it is one.
    @inlinable
    static func release(_ bits: Int) {
        guard isReference(bits) else { return }
        RetainedBits.release(bits)
    }
}

/// The closures of a `Subscribers.Sink`, noncopyable so that the sink calls them in place (see the sink).
@usableFromInline
struct SinkClosures<Input, Failure: Error>: ~Copyable {
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

    @inlinable
    borrowing func receive(_ value: Input) {
        receiveValue(value)
    }

    @inlinable
    borrowing func receive(_ completion: Subscribers.Completion<Failure>) {
        receiveCompletion(completion)
    }
}
