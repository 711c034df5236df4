import UntangleSync

/// One subscriber's connection to a subject, seen by the subject without knowing the subscriber's type.
///
/// Performance: the per-value and per-request entry points are stored closures, not overridden methods. A
/// subclass's override runs the subclass's *unspecialized* generic code (vtables and witness tables of generic
/// classes always point there), which pays a runtime metadata lookup (hundreds of instructions) for every generic
/// type it touches, on every call. The closures are formed in the subclass's `@inlinable` initializer, which the
/// client module specializes for the concrete subscriber type; they capture nothing, so they cost no allocation.
@usableFromInline
package class SubjectConduit<Output, Failure: Error> {
    /// Offers a value to the conduit passed as the first argument (always the conduit that stores the closure).
    @usableFromInline let offerEntry: (SubjectConduit, Output) -> Void
    /// Requests demand (non-nil) or cancels (nil) for the conduit passed as the first argument.
    @usableFromInline let controlEntry: (SubjectConduit, Subscribers.Demand?) -> Void

    @inlinable
    package init(
        offerEntry: @escaping (SubjectConduit, Output) -> Void,
        controlEntry: @escaping (SubjectConduit, Subscribers.Demand?) -> Void
    ) {
        self.offerEntry = offerEntry
        self.controlEntry = controlEntry
    }

    @inlinable
    package final func offer(_ value: Output) {
        offerEntry(self, value)
    }

    @inlinable
    package func finish(_ completion: Subscribers.Completion<Failure>) {
        preconditionFailure("SubjectConduit.finish is abstract")
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
    /// The lock of every subscriber's emitter state (see `SubjectSubscription.emitterMemory`); never held together
    /// with `state`'s lock, and only around the emitters' state machines (no callouts).
    @usableFromInline let deliveryLock = Lock()

    /// A subject with `policy` `.dropWithoutDemand` keeps no current value (`subscribeSink` relies on it).
    @inlinable
    package init(current: Output?, policy: EmitterBufferPolicy) {
        precondition(policy != .dropWithoutDemand || current == nil, "SubjectCore: a current value needs .keepLatest")
        state = LockedBox(tracking: State(current: current))
        self.policy = policy
    }

    deinit {
        // The subject is gone: nobody can send any more, so stop upstream subscriptions it was forwarding, and let go
        // of the subscriptions (each holds the state strongly, see `SubjectSubscription.registry`; this breaks that
        // cycle). They are released after unlocking: releasing one may run user code (a subscriber's deinit).
        // The current value goes too: subscriptions that outlive the subject keep the state, not the value.
        let (upstreams, conduits, current) = state.withCriticalSection { state in
            defer {
                state.conduits = []
                state.current = nil
            }
            return (state.upstreams, state.conduits, state.current)
        }
        withExtendedLifetime((conduits, current)) {}
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
        if policy == .dropWithoutDemand, DownstreamReference<S>.isSink {
            subscribeSink(_unsafeReferenceCast(subscriber, to: Subscribers.Sink<Output, Failure>.self))
            return
        }
        let conduit = SubjectSubscription(
            downstream: subscriber, policy: policy, deliveryLock: deliveryLock, registry: state)
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

    // A `Sink` on a subject without a current value (the most common subscription there is) skips the
    // subscription callout: what the sink does in `receive(subscription:)` is known (keep the subscription, request
    // `.unlimited`), so the sink adopts a subscription whose emitter starts with unlimited demand. Nothing can tell
    // the difference: the sink holds its subscription before any value can reach it and has asked for everything,
    // and a subject that already completed delivers its completion through the new subscription's emitter, as it
    // would after a callout. What it saves: the three critical sections of the callout (start, the sink's request,
    // the callout's end), about a tenth of a subscribe and cancel. Subjects with a current value
    // (CurrentValueSubject) keep the ordinary path, which queues that value before the subscription is published.
    //
    // The adoption happens under the subject lock, together with publishing the subscription in the list. It is
    // the sink's own atomic state change, not a callout (no user code, no other lock), and doing it there closes a
    // window: a `cancel()` on the sink from another thread lands either before it (the adoption fails, nothing is
    // published) or after the subscription is in the list (the cancel's removal waits for the lock and finds it).
    // Adopted first and published after, a cancel in between would have removed nothing and left a dead
    // subscription in the list for the subject's lifetime.
    @inlinable
    func subscribeSink(_ sink: Subscribers.Sink<Output, Failure>) {
        let conduit = SubjectSubscription(
            startedSink: sink, policy: policy, deliveryLock: deliveryLock, registry: state)
        let completion = state.withCriticalSection { state -> Subscribers.Completion<Failure>? in
            guard sink.adoptUnlimitedSubscription(conduit) else { return nil }
            if let completion = state.completion {
                return completion
            }
            state.conduits.append(conduit)
            return nil
        }
        if let completion {
            conduit.emitter.complete(completion, order: .immediately)
        }
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

/// The subscription a subject hands each subscriber.
@usableFromInline
final class SubjectSubscription<Downstream: Subscriber>: SubjectConduit<Downstream.Input, Downstream.Failure>,
    Subscription, CustomStringConvertible, @unchecked Sendable
{
    // The subscriber's emitter state (owner word and state machine) lives in `emitterMemory`, a raw allocation this
    // subscription owns, under `deliveryLock`, which the subject shares among its subscribers.
    //
    // Memory: no lock and no object header per subscriber (the state is a 64-byte allocation where an emitter object
    // of its own with a `pthread_mutex_t` took 112). The price: a subject's subscribers share one lock on their
    // locked paths (bounded demand, queued values, completion, cancel); their lock-free path (unlimited demand,
    // nothing queued) takes no lock at all.
    @usableFromInline let emitterMemory: UnsafeMutableRawPointer
    @usableFromInline let deliveryLock: Lock
    // The subject's state (its subscriber list), held strongly, not the subject: a subscription must not keep its
    // subject alive, and the list holds this subscription, so this is a cycle that is broken whenever the
    // subscription leaves the list: on cancel, on the subject's completion and in the subject's deinit.
    //
    // Performance: a strong reference costs one reference-count operation to take and one to drop; the weak
    // reference to the subject it replaces cost three atomic operations on the subject's side table (form, load
    // strong, destroy), about 8% of a subscribe and cancel.
    @usableFromInline let registry: LockedBox<SubjectCore<Downstream.Input, Downstream.Failure>.State>

    @inlinable
    convenience init(
        downstream: Downstream, policy: EmitterBufferPolicy, deliveryLock: Lock,
        registry: LockedBox<SubjectCore<Downstream.Input, Downstream.Failure>.State>
    ) {
        self.init(
            emitterMemory: SubjectEmitterStorage.allocate(
                EmitterStateMachine(downstream: downstream, policy: policy), word: 0),
            deliveryLock: deliveryLock, registry: registry)
    }

    /// A subscription for a sink that adopts it without a subscription callout (see `SubjectCore.subscribeSink`).
    @inlinable
    convenience init(
        startedSink sink: Downstream, policy: EmitterBufferPolicy, deliveryLock: Lock,
        registry: LockedBox<SubjectCore<Downstream.Input, Downstream.Failure>.State>
    ) {
        // The machine starts fast-eligible, so the word starts with the fast bit and no owner: the state a critical
        // section would leave it in.
        self.init(
            emitterMemory: SubjectEmitterStorage.allocate(
                EmitterStateMachine(startedWithUnlimitedDemand: sink, policy: policy),
                word: SerialEmitter<SubjectEmitterStorage<Downstream>>.fastBit),
            deliveryLock: deliveryLock, registry: registry)
    }

    @inlinable
    init(
        emitterMemory: UnsafeMutableRawPointer, deliveryLock: Lock,
        registry: LockedBox<SubjectCore<Downstream.Input, Downstream.Failure>.State>
    ) {
        self.emitterMemory = emitterMemory
        self.deliveryLock = deliveryLock
        self.registry = registry
        // Specialized entry points (see SubjectConduit). The first argument is always `self`, so the downcast is
        // safe; passing it in keeps the closures capture-free.
        super.init(
            offerEntry: { conduit, value in
                unsafeDowncast(conduit, to: SubjectSubscription<Downstream>.self).emitter.offer(value)
            },
            controlEntry: { conduit, demand in
                let subscription = unsafeDowncast(conduit, to: SubjectSubscription<Downstream>.self)
                if let demand {
                    subscription.emitter.request(demand)
                } else if subscription.emitter.cancel() {
                    SubjectCore.remove(subscription, from: subscription.registry)
                }
            })
    }

    deinit {
        SubjectEmitterStorage<Downstream>.deallocate(emitterMemory)
    }

    /// The subscriber's emitter over this subscription's state. Valid while the subscription lives (whoever calls
    /// into it keeps it alive for the call).
    @inlinable
    var emitter: SerialEmitter<SubjectEmitterStorage<Downstream>> {
        SerialEmitter(storage: SubjectEmitterStorage(lock: UnretainedLock(deliveryLock), memory: emitterMemory))
    }

    @inlinable
    override func finish(_ completion: Subscribers.Completion<Downstream.Failure>) {
        emitter.complete(completion, order: .afterDemandedValues)
    }

    @inlinable
    func request(_ demand: Subscribers.Demand) {
        demand.preconditionNonZero()
        controlEntry(self, demand)
    }

    @inlinable
    func cancel() {
        controlEntry(self, nil)
    }

    @usableFromInline
    var description: String { "SubjectSubscription" }
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

/// A subject subscription's emitter state: the owner word and the state machine in one raw allocation that the
/// subscription owns, guarded by the lock the subject shares among its subscribers.
///
/// ```swift
/// let memory = SubjectEmitterStorage<S>.allocate(EmitterStateMachine(downstream: s, policy: .keepLatest), word: 0)
/// let emitter = SerialEmitter(storage: SubjectEmitterStorage(lock: UnretainedLock(lock), memory: memory))
/// SubjectEmitterStorage<S>.deallocate(memory)   // when the subscription goes
/// ```
///
/// **Demand:** not applicable.
/// **Thread safety:** as ``EmitterStorage``; the lock and the memory must outlive every use (the subscription keeps
/// both).
@usableFromInline
struct SubjectEmitterStorage<Downstream: Subscriber>: EmitterStorage {
    @usableFromInline typealias Machine = EmitterStateMachine<Downstream>

    @usableFromInline let lock: UnretainedLock
    @usableFromInline let memory: UnsafeMutableRawPointer

    @inlinable
    init(lock: UnretainedLock, memory: UnsafeMutableRawPointer) {
        self.lock = lock
        self.memory = memory
    }

    // The word first, then the machine at the next address aligned for it.
    @inlinable
    static var machineOffset: Int {
        let alignment = MemoryLayout<Machine>.alignment
        return (RawWordAccess.size + alignment - 1) / alignment * alignment
    }

    /// Allocates and initializes the state (counted by ``LiveObjects`` in debug builds, like the emitter objects).
    @inlinable
    static func allocate(_ machine: consuming Machine, word: Int) -> UnsafeMutableRawPointer {
        let memory = UnsafeMutableRawPointer.allocate(
            byteCount: machineOffset + MemoryLayout<Machine>.size,
            alignment: Swift.max(RawWordAccess.alignment, MemoryLayout<Machine>.alignment))
        RawWordAccess.initialize(memory, to: word)
        (memory + machineOffset).bindMemory(to: Machine.self, capacity: 1).initialize(to: machine)
        #if DEBUG
            LiveObjects.increment()
        #endif
        return memory
    }

    @inlinable
    static func deallocate(_ memory: UnsafeMutableRawPointer) {
        (memory + machineOffset).assumingMemoryBound(to: Machine.self).deinitialize(count: 1)
        RawWordAccess.deinitialize(memory)
        memory.deallocate()
        #if DEBUG
            LiveObjects.decrement()
        #endif
    }

    @inlinable
    func withCriticalSection<Result>(_ body: (inout Machine, WordAccess) -> Result) -> Result {
        let machine = (memory + Self.machineOffset).assumingMemoryBound(to: Machine.self)
        return lock.withCriticalSection { body(&machine.pointee, RawWordAccess(memory)) }
    }

    @inlinable
    func compareExchangeWord(expected: Int, desired: Int) -> Bool {
        RawWordAccess(memory).compareExchange(expected: expected, desired: desired)
    }

    @inlinable
    func withUnlockedValue<Result>(_ body: (UnsafeMutablePointer<Machine>) -> Result) -> Result {
        body((memory + Self.machineOffset).assumingMemoryBound(to: Machine.self))
    }
}
