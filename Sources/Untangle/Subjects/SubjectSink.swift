import UntangleSync

// A `sink` on a subject (the most common subscription there is: `_OneObjectSink` gives PassthroughSubject,
// CurrentValueSubject, `@Published`'s publisher and the relays their `sink`) is one object, not two: the subject's
// subscription holds the sink's closures and is its own downstream, where a `Subscribers.Sink` and the subscription
// it adopts (see `SubjectCore.subscribeSink(_:)`) were two objects pointing at each other. Nobody can tell: the
// sink of `sink(receiveValue:)` is never handed to anyone, and the subscription is reached only through the
// `AnyCancellable` returned. What it saves per subscription: an object (an 80-byte heap chunk), the sink's adoption
// steps, and the sink's hop on cancel (measured in Benchmarks/README.md, "The fourth session").
//
// The emitter holds its downstream strongly: here that is the subscription itself, a reference cycle by design,
// broken exactly when the emitter lets go of its downstream (the completion delivered, or the cancel, which the
// `AnyCancellable`'s deinit makes at the latest). Until then something must keep the subscription alive anyway (the
// subject's list, or the `AnyCancellable`); after it, only the `AnyCancellable` does, as it kept a `Sink`.
//
// Two classes, because of what a generic class's deinit costs: the state's type is a generic parameter of the
// final class (as for `SubjectSubscription`: destroyed through its metadata, found in the class's), and the emitter's
// downstream type must not mention it (a type cannot contain itself), so the emitter's downstream is the base class,
// which holds the closures and delivers to them.

/// The downstream half of a ``SubjectSink``: the sink's closures, and the `receive` calls the emitter makes.
///
/// ```swift
/// let cancellable = subject.sink { print($0) }  // a SubjectSink; the emitter delivers to this half
/// ```
///
/// **Demand:** `.unlimited`, from the start (the subscription starts with it; nothing else requests).
/// **Thread safety:** as `Subscribers.Sink`: the emitter serializes the `receive` calls; `receive(completion:)`
/// replaces the closures, never during a `receive(_:)`.
@usableFromInline
class SubjectSinkBase<Input, Failure: Error>: SubjectConduit<Input, Failure>, Subscriber {
    // As `Subscribers.Sink.closures`: inline, borrowed in place per value, replaced only by the completion.
    @exclusivity(unchecked) @usableFromInline final var closures: SinkClosures<Input, Failure>

    @inlinable
    init(closures: consuming SinkClosures<Input, Failure>) {
        self.closures = closures
        super.init()
    }

    /// Never called: the subscription is its own downstream and starts delivering at once.
    @usableFromInline
    final func receive(subscription: Subscription) {
        preconditionFailure("SubjectSink: receive(subscription:) is never called (the subscription is its own)")
    }

    /// Calls `receiveValue`; returns `.none` (the subscription has `.unlimited` demand).
    @inlinable
    final func receive(_ input: Input) -> Subscribers.Demand {
        closures.receive(input)
        return .none
    }

    /// Calls `receiveCompletion`, then releases both closures (as `Subscribers.Sink`: the closures are taken out
    /// before the call, so a completion sent from inside it finds the no-ops, and released after it).
    @usableFromInline
    final func receive(completion: Subscribers.Completion<Failure>) {
        let receiveCompletion = closures.receiveCompletion
        let receiveValue = closures.receiveValue
        closures = SinkClosures(receiveValue: { _ in }, receiveCompletion: { _ in })
        receiveCompletion(completion)
        withExtendedLifetime(receiveValue) {}
    }
}

/// The subscription of a `sink` on a subject, which is its own downstream (see ``SubjectSinkBase``); `State` is always
/// `SubjectSubscriptionState<EmitterStateMachine<SubjectSinkBase<…>>>` (see ``SubjectSinkOf``).
///
/// ```swift
/// let cancellable = PassthroughSubject<Int, Never>().sink { print($0) }  // AnyCancellable(a SubjectSink)
/// ```
///
/// **Demand:** `.unlimited`, from the start.
/// **Thread safety:** as ``SubjectSubscription``; `cancel()` from any thread, any number of times.
@usableFromInline
final class SubjectSink<Input, Failure: Error, State>: SubjectSinkBase<Input, Failure>, Subscription,
    @unchecked Sendable
{
    @usableFromInline typealias Downstream = SubjectSinkBase<Input, Failure>
    @usableFromInline typealias Machine = EmitterStateMachine<Downstream>

    // As `SubjectSubscription.state`: the owner word and the machine, reached through their address only
    // (`inlineState`), the first stored property after the base classes' (the entries' reference and the two
    // closures, five words; checked in init and by SubjectSinkTests).
    @exclusivity(unchecked) @usableFromInline var state: State

    /// A subscription delivering to `closures`, started with unlimited demand.
    @inlinable
    init(closures: consuming SinkClosures<Input, Failure>, policy: EmitterBufferPolicy)
    where State == SubjectSubscriptionState<Machine> {
        // The word starts with the fast bit and no owner, the state a critical section leaves a fast-eligible
        // machine in (as `SubjectSubscription.init(startedSink:policy:)`).
        state = SubjectSubscriptionState(
            word: SerialEmitter<SubjectEmitterStorage<Downstream>>.fastBit,
            machine: Machine(startedWithUnlimitedDemandForSelfHeldDownstreamWith: policy))
        super.init(closures: closures)
        assert(inlineState.isAddress(of: &state, valueAt: \.machine), "SubjectSink layout")
        // Not yet published (the caller publishes it under the subject lock), so no lock is needed to set it.
        inlineState.value.pointee.adoptSelfHeldDownstream(self)
        #if DEBUG
            LiveObjects.increment()
        #endif
    }

    deinit {
        #if DEBUG
            LiveObjects.decrement()
        #endif
    }

    /// `state`, by its address (see `state`).
    @inlinable
    var inlineState: InlineOwnedState<Machine> {
        InlineOwnedState(inStoredPropertiesOf: self, afterReferences: 5)
    }

    /// Makes the calling thread the owner of this subscription's emitter before the subscription is published
    /// (under the subject lock, where nothing else can reach it yet, so without the delivery lock): the owner word
    /// holds the thread, without the fast bit, as a critical section leaves it for an owned machine, so that values
    /// offered once it is published queue for the owner. The caller then delivers the current value
    /// (``deliverAsOwner(_:)``).
    @inlinable
    func claimBeforePublishing(on thread: ThreadID) {
        inlineState.value.pointee.claimBeforePublishing(on: thread)
        inlineState.word.store(inlineState.value.pointee.ownerBits)
    }

    /// Delivers `value` as the emitter's owner (``claimBeforePublishing(on:)``), then what queued meanwhile.
    @inlinable
    func deliverAsOwner(_ value: Input) {
        emitter.deliver(value, asOwnerTo: DownstreamReference(heldUnboxed: self))
    }

    /// The emitter over this subscription's state (as `SubjectSubscription.emitter`).
    //
    // Performance: spelled out in both classes, not shared through a protocol extension: the subject's entries
    // call it from closures that run unspecialized where the client subscribed in generic code, and reaching a
    // protocol extension there looks the conformance's witness table up on every value (measured: +128
    // instructions per value on core-map-compactmap, two `swift_getWitnessTable` calls).
    @inlinable
    var emitter: SerialEmitter<SubjectEmitterStorage<Downstream>> {
        SerialEmitter(
            storage: SubjectEmitterStorage(
                lock: withEntries { UnretainedLock($0.deliveryLock) }, state: inlineState))
    }

    @inlinable
    override func finish(_ completion: Subscribers.Completion<Failure>) {
        emitter.complete(completion, order: .afterDemandedValues)
    }

    /// Nothing to add: the subscription has `.unlimited` demand from the start (and only its `AnyCancellable` holds
    /// it, which never requests).
    @inlinable
    func request(_ demand: Subscribers.Demand) {
        demand.preconditionNonZero()
    }

    /// Stops delivery and leaves the subject's list; the closures go with the subscription (when its
    /// `AnyCancellable` lets go of it), as a cancelled `Subscribers.Sink`'s do.
    //
    // Performance: called from the `AnyCancellable`'s closure, formed in `SubjectCore.subscribeSink(closures:)`
    // where the types are known, so this runs specialized and needs no detour through the entries' `controlEntry`
    // (which `SubjectSubscription.cancel()` takes, being reached through the `Cancellable` witness, unspecialized).
    @inlinable
    func cancel() {
        if emitter.cancel() {
            withEntries { SubjectCore.remove(self, from: $0.registry) }
        }
    }
}

/// The subscription of a `sink` on a subject of `Output` and `Failure` without a current value.
@usableFromInline
typealias SubjectSinkOf<Output, Failure: Error> =
    SubjectSink<Output, Failure, SubjectSubscriptionState<EmitterStateMachine<SubjectSinkBase<Output, Failure>>>>
