import UntangleSync

/// One subscriber's connection to a subject, seen by the subject without knowing the subscriber's type.
///
/// A `ManagedBuffer` whose header is ``SubjectConduitHeader`` and whose elements are raw words holding the
/// subscriber's emitter state (lock, owner word and ``EmitterStateMachine``; laid out by ``SubjectSubscription``), so
/// that a subscription is one object rather than three (the connection, the emitter's state and its lock).
///
/// Performance: the per-value and per-request entry points are stored closures, not overridden methods. A
/// subclass's override runs the subclass's *unspecialized* generic code (vtables and witness tables of generic
/// classes always point there), which pays a runtime metadata lookup (hundreds of instructions) for every generic
/// type it touches, on every call. The closures are formed in the subclass's `@inlinable` factory, which the
/// client module specializes for the concrete subscriber type; they capture nothing, so they cost no allocation.
@usableFromInline
package class SubjectConduit<Output, Failure: Error>: ManagedBuffer<SubjectConduitHeader<Output, Failure>, UInt64> {
    @inlinable
    package final func offer(_ value: Output) {
        withUnsafeMutablePointerToHeader { $0.pointee.offerEntry(self, value) }
    }

    // Where the header starts: right after the object's two-word heap header (its alignment is a word's). Code that
    // runs unspecialized (the `Subscription` witnesses and `deinit`: witness tables and vtables of generic classes
    // point to generic code) reads the control entry at this fixed address, because asking `ManagedBuffer` for
    // the header's address there would look up the header type's generic metadata, a hash-table search, on every
    // call. `make` checks the offset.
    @inlinable
    static var headerOffset: Int { 2 * MemoryLayout<UnsafeRawPointer>.size }

    /// Runs the specialized control entry (valid from `make` until `deinit` has run it with `.destroy`).
    @inlinable
    final func control(_ action: SubjectConduitControl) {
        let header = UnsafeRawPointer(Unmanaged.passUnretained(self).toOpaque()) + Self.headerOffset
        header.load(as: SubjectConduitControlSlot.self).entry(self, action)
    }

    @inlinable
    package func finish(_ completion: Subscribers.Completion<Failure>) {
        preconditionFailure("SubjectConduit.finish is abstract")
    }
}

/// What a ``SubjectConduit``'s control entry is asked to do.
@usableFromInline
package enum SubjectConduitControl {
    case request(Subscribers.Demand)
    case cancel
    /// Destroy the emitter state in the elements (from `deinit`; nothing else may use the conduit).
    case destroy
}

/// A conduit's control entry: non-generic, so that unspecialized code can load and call it without metadata.
@usableFromInline
package typealias SubjectConduitControlEntry = (AnyObject, SubjectConduitControl) -> Void

/// The control entry in a non-generic struct: a closure stored directly in a generic struct's field is kept in its
/// most general (reabstracted) representation, which a raw load typed as the closure would misread; inside a
/// non-generic struct it keeps its plain representation.
@usableFromInline
package struct SubjectConduitControlSlot {
    @usableFromInline let entry: SubjectConduitControlEntry

    @inlinable
    init(_ entry: @escaping SubjectConduitControlEntry) {
        self.entry = entry
    }
}

/// The fixed part of a ``SubjectConduit``: its entry points and the subscriber list it belongs to.
@usableFromInline
package struct SubjectConduitHeader<Output, Failure: Error> {
    /// Requests, cancels or destroys for the conduit passed as the first argument (always the conduit that stores
    /// the closure). The first stored property: ``SubjectConduit/control(_:)`` reads it at the header's address.
    @usableFromInline let control: SubjectConduitControlSlot
    /// Offers a value to the conduit passed as the first argument (always the conduit that stores the closure).
    @usableFromInline let offerEntry: (SubjectConduit<Output, Failure>, Output) -> Void
    // The subject's state (its subscriber list), held strongly, not the subject: a subscription must not keep its
    // subject alive, and the list holds this subscription, so this is a cycle that is broken whenever the
    // subscription leaves the list: on cancel, on the subject's completion and in the subject's deinit.
    //
    // Performance: a strong reference costs one reference-count operation to take and one to drop; a weak
    // reference to the subject cost three atomic operations on the subject's side table (form, load strong,
    // destroy), about 8% of a subscribe and cancel.
    @usableFromInline let registry: LockedBox<SubjectCore<Output, Failure>.State>

    @inlinable
    init(
        controlEntry: @escaping SubjectConduitControlEntry,
        offerEntry: @escaping (SubjectConduit<Output, Failure>, Output) -> Void,
        registry: LockedBox<SubjectCore<Output, Failure>.State>
    ) {
        control = SubjectConduitControlSlot(controlEntry)
        self.offerEntry = offerEntry
        self.registry = registry
    }
}

/// The shared machinery of ``PassthroughSubject`` and ``CurrentValueSubject``: the list of subscribers, the terminal
/// state and the upstream subscriptions, behind one lock; delivery goes through each subscriber's ``Emitter``.
///
/// **Demand:** per subscriber, through its emitter's policy.
/// **Thread safety:** every method may be called from any thread. The subject lock is held only to read or change
/// the list; values are handed to the emitters after unlocking (sends from one thread keep their order; sends from
/// several threads at once interleave in an unspecified order, and nothing is lost that demand allowed).
@usableFromInline
package final class SubjectCore<Output, Failure: Error>: @unchecked Sendable {
    @usableFromInline
    struct State {
        @usableFromInline var conduits: [SubjectConduit<Output, Failure>] = []
        @usableFromInline var completion: Subscribers.Completion<Failure>?
        @usableFromInline var upstreams: [UpstreamReference] = []
        /// The latest value, for CurrentValueSubject; nil for PassthroughSubject.
        @usableFromInline var current: Output?

        @inlinable
        init(current: Output?) {
            self.current = current
        }
    }

    @usableFromInline let state: LockedBox<State>
    @usableFromInline let policy: EmitterBufferPolicy

    @inlinable
    package init(current: Output?, policy: EmitterBufferPolicy) {
        state = LockedBox(tracking: State(current: current))
        self.policy = policy
    }

    deinit {
        // The subject is gone: nobody can send any more, so stop upstream subscriptions it was forwarding, and let go
        // of the subscriptions (each holds the state strongly, see `SubjectSubscription.registry`; this breaks that
        // cycle). They are released after unlocking: releasing one may run user code (a subscriber's deinit).
        let (upstreams, conduits) = state.withCriticalSection { state in
            defer { state.conduits = [] }
            return (state.upstreams, state.conduits)
        }
        withExtendedLifetime(conduits) {}
        for upstream in upstreams {
            upstream.subscription?.cancel()
        }
    }

    /// The latest value (CurrentValueSubject only).
    @inlinable
    package var current: Output {
        state.withCriticalSection { $0.current! }
    }

    @inlinable
    package func subscribe<S: Subscriber>(_ subscriber: S) where S.Input == Output, S.Failure == Failure {
        let conduit = SubjectSubscription.make(downstream: subscriber, policy: policy, registry: state)
        let completion = state.withCriticalSection { state -> Subscribers.Completion<Failure>? in
            if let completion = state.completion {
                return completion
            }
            if let current = state.current {
                // Queued (not delivered: the subscription has not started), so no callout happens here.
                conduit.emitter.offer(current)
            }
            state.conduits.append(conduit)
            return nil
        }
        if let completion {
            CalloutCheck.assertNoLockHeld("subject subscribing after completion")
            subscriber.receive(subscription: Subscriptions.empty)
            subscriber.receive(completion: completion)
            return
        }
        conduit.emitter.start(subscription: conduit)
    }

    @inlinable
    package func send(_ value: Output) {
        let conduits = state.withCriticalSection { state -> [SubjectConduit<Output, Failure>] in
            guard state.completion == nil else { return [] }
            if state.current != nil {
                state.current = value
            }
            return state.conduits
        }
        // Performance: the snapshot keeps every conduit alive for the whole loop, so each one is borrowed from it
        // (read as `Unmanaged`) instead of retained and released per delivery.
        conduits.withUnsafeBufferPointer { buffer in
            guard let base = buffer.baseAddress else { return }
            let raw = UnsafeRawPointer(base)
            for index in buffer.indices {
                raw.load(
                    fromByteOffset: index * MemoryLayout<SubjectConduit<Output, Failure>>.stride,
                    as: Unmanaged<SubjectConduit<Output, Failure>>.self
                )._withUnsafeGuaranteedRef { $0.offer(value) }
            }
        }
    }

    @inlinable
    package func send(completion: Subscribers.Completion<Failure>) {
        let (conduits, upstreams) = state.withCriticalSection {
            state -> ([SubjectConduit<Output, Failure>], [Subscription]) in
            guard state.completion == nil else { return ([], []) }
            state.completion = completion
            defer {
                state.conduits = []
                state.upstreams = []
            }
            return (state.conduits, state.upstreams.compactMap(\.subscription))
        }
        // Upstream subscriptions are released, not cancelled: a completion sent by hand does not stop them in
        // Apple's Combine either, and their values are ignored from now on.
        withExtendedLifetime(upstreams) {}
        for conduit in conduits {
            conduit.finish(completion)
        }
    }

    @inlinable
    package func send(subscription: Subscription) {
        let accepted = state.withCriticalSection { state -> Bool in
            guard state.completion == nil else { return false }
            // Class-based subscriptions (every Untangle one) are held weakly: a connection cancelled elsewhere must
            // not stay alive in a long-lived subject. Dead entries are pruned here, so the list stays as long as
            // the number of live connections.
            state.upstreams.removeAll { $0.isGone }
            state.upstreams.append(UpstreamReference(subscription))
            return true
        }
        CalloutCheck.assertNoLockHeld("subject requesting from an upstream subscription")
        if accepted {
            subscription.request(.unlimited)
        } else {
            subscription.cancel()
        }
    }

    /// Takes `conduit` out of the subscriber list in `registry` (a cancelled subscription leaving).
    @inlinable
    static func remove(_ conduit: SubjectConduit<Output, Failure>, from registry: LockedBox<State>) {
        let removed = registry.withCriticalSection { state -> SubjectConduit<Output, Failure>? in
            guard let index = state.conduits.firstIndex(where: { $0 === conduit }) else { return nil }
            return state.conduits.remove(at: index)
        }
        withExtendedLifetime(removed) {}
    }
}

/// The subscription a subject hands each subscriber: a ``SubjectConduit`` whose elements hold the subscriber's
/// emitter state (its ``EmitterStorage`` is a borrowed reference to the subscription, `SubjectEmitterStorage`).
///
/// Memory: one object (header, lock, owner word and state machine) instead of a connection object plus an emitter
/// object with its lock; the emitter's downstream box is the only other object per subscriber.
@usableFromInline
final class SubjectSubscription<Downstream: Subscriber>: SubjectConduit<Downstream.Input, Downstream.Failure>,
    Subscription, CustomStringConvertible
{
    @usableFromInline typealias Machine = EmitterStateMachine<Downstream>

    // The elements, as raw words: a `WordLockTail` (the lock, then the owner word) at offset 0, then the state
    // machine at the next address aligned for it. Both are initialized in `make`, before the object is shared, and
    // destroyed in `deinit`; they never move (the object is on the heap), which the lock and the atomic word need.
    @inlinable
    static var tailWords: Int {
        let lockBytes = MemoryLayout<WordLockTail>.size
        let padding = Swift.max(MemoryLayout<Machine>.alignment - MemoryLayout<UInt64>.alignment, 0)
        return (lockBytes + padding + MemoryLayout<Machine>.size + 7) / 8
    }

    @inlinable
    static func make(
        downstream: Downstream, policy: EmitterBufferPolicy,
        registry: LockedBox<SubjectCore<Downstream.Input, Downstream.Failure>.State>
    ) -> SubjectSubscription {
        // Specialized entry points (see SubjectConduit). The first argument is always the conduit itself, so the
        // downcast is safe; passing it in keeps the closures capture-free.
        let header = SubjectConduitHeader(
            controlEntry: { conduit, action in
                let subscription = unsafeDowncast(conduit, to: SubjectSubscription<Downstream>.self)
                switch action {
                case .request(let demand):
                    subscription.emitter.request(demand)
                case .cancel:
                    if subscription.emitter.cancel() {
                        subscription.withUnsafeMutablePointerToHeader { header in
                            SubjectCore.remove(subscription, from: header.pointee.registry)
                        }
                    }
                case .destroy:
                    subscription.withEmitterPointers { tail, machine in
                        machine.deinitialize(count: 1)
                        WordLockTail.deinitialize(tail)
                    }
                }
            },
            offerEntry: { conduit, value in
                unsafeDowncast(conduit, to: SubjectSubscription<Downstream>.self).emitter.offer(value)
            },
            registry: registry)
        let buffer = create(minimumCapacity: tailWords) { _ in header }
        // `create` is declared to return ManagedBuffer; the dynamic type is Self.
        let subscription = unsafeDowncast(buffer, to: SubjectSubscription.self)
        subscription.withUnsafeMutablePointerToElements { elements in
            let raw = UnsafeMutableRawPointer(elements)
            WordLockTail.initialize(raw.bindMemory(to: WordLockTail.self, capacity: 1))
            let machine = Self.machineAddress(raw).bindMemory(to: Machine.self, capacity: 1)
            machine.initialize(to: Machine(downstream: downstream, policy: policy))
        }
        subscription.withUnsafeMutablePointerToHeader { header in
            let object = UnsafeMutableRawPointer(Unmanaged.passUnretained(subscription).toOpaque())
            assert(UnsafeMutableRawPointer(header) == object + headerOffset, "SubjectConduit header offset")
        }
        #if DEBUG
            LiveObjects.increment()
        #endif
        return subscription
    }

    @inlinable
    static func machineAddress(_ elements: UnsafeMutableRawPointer) -> UnsafeMutableRawPointer {
        (elements + MemoryLayout<WordLockTail>.size).alignedUp(for: Machine.self)
    }

    deinit {
        // Through the specialized entry: this deinit runs unspecialized code (see `SubjectConduit.headerOffset`).
        control(.destroy)
        #if DEBUG
            LiveObjects.decrement()
        #endif
    }

    @inlinable
    func withEmitterPointers<Result>(
        _ body: (UnsafeMutablePointer<WordLockTail>, UnsafeMutablePointer<Machine>) throws -> Result
    ) rethrows -> Result {
        try withUnsafeMutablePointerToElements { elements in
            let raw = UnsafeMutableRawPointer(elements)
            return try body(
                raw.assumingMemoryBound(to: WordLockTail.self),
                Self.machineAddress(raw).assumingMemoryBound(to: Machine.self))
        }
    }

    /// The subscriber's emitter, over this object's storage. Use it only while this subscription is otherwise kept
    /// alive (it is: by the subject's snapshot while a value is offered, by the caller of `request` or `cancel`).
    @inlinable
    var emitter: SerialEmitter<SubjectEmitterStorage<Downstream>> {
        SerialEmitter(storage: SubjectEmitterStorage(subscription: self))
    }

    @inlinable
    override func finish(_ completion: Subscribers.Completion<Downstream.Failure>) {
        emitter.complete(completion, order: .afterDemandedValues)
    }

    @inlinable
    func request(_ demand: Subscribers.Demand) {
        demand.preconditionNonZero()
        control(.request(demand))
    }

    @inlinable
    func cancel() {
        control(.cancel)
    }

    @usableFromInline
    var description: String { "SubjectSubscription" }
}

/// A ``SubjectSubscription`` seen as the ``EmitterStorage`` of its subscriber's emitter: an unretained reference.
///
/// Performance: an emitter holding the subscription strongly would retain and release it around every value (the
/// emitter is a temporary formed from the subscription each time); borrowing it costs nothing, and whoever called
/// into the subscription keeps it alive for the call.
@usableFromInline
struct SubjectEmitterStorage<Downstream: Subscriber>: EmitterStorage {
    @usableFromInline let subscription: Unmanaged<SubjectSubscription<Downstream>>

    @inlinable
    init(subscription: SubjectSubscription<Downstream>) {
        self.subscription = .passUnretained(subscription)
    }

    @inlinable
    func withEmitterPointers<Result>(
        _ body: (UnsafeMutablePointer<WordLockTail>, UnsafeMutablePointer<EmitterStateMachine<Downstream>>) throws
            -> Result
    ) rethrows -> Result {
        try subscription._withUnsafeGuaranteedRef { try $0.withEmitterPointers(body) }
    }
}

/// A subject's reference to an upstream subscription it was given with `send(subscription:)`: weak for classes (so
/// cancelled connections are not kept alive), strong for value types (which nothing else would keep).
@usableFromInline
struct UpstreamReference {
    @usableFromInline weak var object: AnyObject?
    @usableFromInline let value: Subscription?

    @inlinable
    init(_ subscription: Subscription) {
        if type(of: subscription) is AnyClass {
            object = subscription as AnyObject
            value = nil
        } else {
            object = nil
            value = subscription
        }
    }

    @inlinable
    var subscription: Subscription? {
        value ?? (object as? Subscription)
    }

    @inlinable
    var isGone: Bool { value == nil && object == nil }
}
