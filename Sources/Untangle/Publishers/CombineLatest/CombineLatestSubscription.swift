import UntangleSync

/// The latest value of each upstream of a combineLatest, typed: one optional stored property per upstream, generated
/// per arity (`CombineLatestValues2` … `CombineLatestValues4`, in the generated publishers' file) with one static
/// `store` function per upstream.
///
/// ```swift
/// var values = CombineLatestValues2<Int, String>()
/// _ = CombineLatestValues2.storeA(&values, 1)        // returns the previous latest value of upstream A
/// _ = CombineLatestValues2.storeB(&values, "b")
/// let tuple = values.output                          // (1, "b")
/// ```
///
/// **Thread safety:** none: a value, always mutated under the combineLatest's lock.
@usableFromInline
protocol CombineLatestValues {
    /// The tuple of one value of each upstream.
    associatedtype Output

    /// The number of upstreams.
    static var count: Int { get }

    /// No upstream has a value yet.
    init()

    /// The tuple of the latest values; only asked for once every upstream has one.
    var output: Output { get }
}

// Performance: `@usableFromInline` with `@inlinable` members (and the generated publishers' `receive(subscriber:)`
// `@inlinable`), so the client module specializes the subscription for the concrete values and downstream. The latest
// values are kept typed here, beside the non-generic ``CombineLatestStateMachine`` under the same lock: no boxing as
// `Any`, no array per tuple, no cast back.

/// The subscription of every combineLatest publisher (`CombineLatest` … `CombineLatest4`), on the fan-in skeleton
/// (``FanIn``: the downstream's emitter behind its demand relay, the lock around the state, with the word beside it
/// that combineLatest uses, the downstream's requests and cancel, the arrival of the upstreams' subscriptions and
/// the callouts after unlocking): it subscribes to each upstream through an indexed inner subscriber, keeps each
/// upstream's latest value typed in `Values`, lets its ``CombineLatestStateMachine`` decide when a tuple forms, keeps
/// who forwards in its lock's word (``CombiningForwarder``), and hands the tuples, in the order they formed, to the
/// emitter so the downstream sees one signal at a time however many threads the upstreams use.
///
/// ```swift
/// let core = CombineLatestSubscription<CombineLatestValues2<Int, String>, _>(downstream: subscriber)
/// core.start()
/// a.subscribe(core.inner(0, CombineLatestValues2<Int, String>.storeA))
/// b.subscribe(core.inner(1, CombineLatestValues2<Int, String>.storeB))
/// ```
///
/// **Demand:** see ``CombineLatestStateMachine``. Demand the downstream returns from `receive(_:)` is forwarded
/// upstream like a request (through ``DemandRelay``).
/// **Thread safety:** upstreams may deliver concurrently from any threads; `request` and `cancel` may be called from
/// any thread. No lock is held while calling an upstream or the downstream, or while releasing a value.
@usableFromInline
final class CombineLatestSubscription<Values: CombineLatestValues, Downstream: Subscriber>: FanInOwner,
    CustomStringConvertible, @unchecked Sendable
where Downstream.Input == Values.Output {
    /// Everything under the lock: the bookkeeping, the typed latest values and the tuples formed while another
    /// thread forwards.
    @usableFromInline
    struct State: FanInStateMachine {
        @usableFromInline var machine: CombineLatestStateMachine
        @usableFromInline var values = Values()
        @usableFromInline var ready = RingBuffer<Values.Output>()

        @inlinable
        init() {
            machine = CombineLatestStateMachine(upstreamCount: Values.count)
        }

        /// Upstream `index`'s subscription arrived: the demand to request from it, or nil to cancel it.
        @inlinable
        mutating func innerSubscribed(_ index: Int, _ subscription: Subscription) -> Subscribers.Demand? {
            machine.subscribed(subscription, at: index)
        }

        /// The downstream asked for more (or returned demand): the subscriptions to forward it to.
        @inlinable
        mutating func request(_ demand: Subscribers.Demand) -> [Subscription] {
            machine.request(demand)
        }

        /// The downstream cancelled: the subscriptions to cancel, and the latest values and queued tuples to release
        /// (nil: it had already ended).
        @inlinable
        mutating func cancelled() -> FanInEnding? {
            machine.cancelled().map { FanInEnding(cancel: $0.cancel, released: takeValues()) }
        }

        /// Takes the latest values and the queued tuples out, to be released after unlocking.
        @inlinable
        mutating func takeValues() -> (Values, RingBuffer<Values.Output>) {
            var taken = (Values(), RingBuffer<Values.Output>())
            swap(&taken.0, &values)
            swap(&taken.1, &ready)
            return taken
        }
    }

    @usableFromInline let fanIn: FanIn<Downstream, State>

    @inlinable
    init(downstream: Downstream) {
        fanIn = FanIn(downstream: downstream, machine: State(), demand: .forwarded)
    }

    /// Delivers `receive(subscription:)` to the downstream. Call once, before subscribing the upstreams.
    @inlinable
    func start() {
        fanIn.start(self)
    }

    /// The subscriber for upstream `index`, which `store`s its values into the latest values (returning the
    /// previous one).
    @inlinable
    func inner<Input>(_ index: Int, _ store: @escaping (inout Values, Input) -> Input?) -> Inner<Input> {
        Inner(owner: self, index: index, store: store)
    }

    @inlinable
    func upstream(_ index: Int, subscribed subscription: Subscription) {
        fanIn.inner(index, subscribed: subscription)
    }

    // Why this stays here and is not FanIn's `offer`: one critical section per value, on the lock's word too. It
    // stores the value and decides; the value it replaces is released after unlocking (its deinit is user code). A
    // thread whose value forms a tuple while nobody forwards becomes the forwarder and takes the tuple straight out of
    // the lock: nothing else can be queued then (the forwarder gives up the role only with an empty queue), so it is
    // the next tuple in order. Tuples formed while another thread forwards wait, typed, in `ready` for that thread,
    // which the word tells to look. After delivering its tuple, a forwarder nobody signalled gives the role up with
    // one compare-exchange (``forward()``), not a second critical section.
    @inlinable
    func upstream<Input>(_ index: Int, received value: Input, store: (inout Values, Input) -> Input?) {
        let (tuple, replaced) = fanIn.state.withCriticalSection { state, word -> (Values.Output?, Input?) in
            guard state.machine.accepts(at: index) else { return (nil, nil) }
            let previous = store(&state.values, value)
            guard case .formed = state.machine.stored(isFirst: previous == nil) else { return (nil, previous) }
            if CombiningForwarder.claimOrSignal(word) { return (state.values.output, previous) }
            state.ready.append(state.values.output)
            return (nil, previous)
        }
        withExtendedLifetime(replaced) {}
        if let tuple {
            fanIn.emitter.offer(tuple)
            forward()
        }
    }

    // FanIn's `perform` cancels, releases the latest values (their deinit is user code) and, for a failure,
    // completes the downstream; a finish is the forwarder's, after the tuples already formed.
    @inlinable
    func upstream(_ index: Int, completed completion: Subscribers.Completion<Downstream.Failure>) {
        let failure: Subscribers.Completion<Downstream.Failure>?
        let outcome: (effects: CombineLatestStateMachine.Effects, values: (Values, RingBuffer<Values.Output>)?)?
        switch completion {
        case .finished:
            (failure, outcome) = (nil, settle { $0.finished(at: index) })
        case .failure:
            (failure, outcome) = (completion, settle { $0.failed(at: index) })
        }
        guard let outcome else { return }
        var released: Any? = outcome.effects.released
        if let values = outcome.values {
            released = (values, outcome.effects.released)
        }
        fanIn.perform(FanInEffects(cancel: outcome.effects.cancel, released: released, completion: failure))
        if outcome.effects.needsForwarder {
            forward()
        }
    }

    /// Runs `decide` under the lock and, when it says so, takes the values out there too (the caller releases them
    /// after unlocking) and claims the forwarder role or signals the forwarder: in the effects returned,
    /// `needsForwarder` means the caller is the forwarder now.
    @inlinable
    func settle(
        _ decide: (inout CombineLatestStateMachine) -> CombineLatestStateMachine.Effects?
    ) -> (effects: CombineLatestStateMachine.Effects, values: (Values, RingBuffer<Values.Output>)?)? {
        fanIn.state.withCriticalSection { state, word in
            guard var effects = decide(&state.machine) else { return nil }
            if effects.needsForwarder {
                effects.needsForwarder = CombiningForwarder.claimOrSignal(word, lookFirst: true)
            }
            return (effects, effects.releaseValues ? state.takeValues() : nil)
        }
    }

    // Why this stays here and is not FanIn's: a fan-in offers each inner's value on the thread that received it,
    // while combineLatest forms tuples under the lock and one thread at a time (the forwarder) hands them over in the
    // order they formed. The loop is shared with zip (``CombiningUpstreams/forward(to:next:)``). Its first
    // step is the fast release: if nobody queued a tuple or started the finish since the forwarder last looked (the
    // word still reads `forwarding`), one compare-exchange ends its turn; otherwise it takes the next step under the
    // lock.
    @inlinable
    func forward() {
        CombiningUpstreams.forward(to: fanIn.emitter) {
            if CombiningForwarder.tryRelease(fanIn.state) { return .idle }
            return fanIn.state.withCriticalSection { state, word -> CombiningStep<Values.Output> in
                switch state.machine.nextToForward(hasQueued: !state.ready.isEmpty) {
                case .value:
                    let tuple = state.ready.popFirst()!
                    CombiningForwarder.took(word, hasMore: !state.ready.isEmpty || !state.machine.isActive)
                    return .value(tuple)
                case .finish:
                    CombiningForwarder.giveUp(word)
                    return .finish
                case .idle:
                    CombiningForwarder.giveUp(word)
                    return .idle
                }
            }
        }
    }

    @usableFromInline
    var description: String { "CombineLatest" }

    /// The subscriber given to upstream `index`.
    @usableFromInline
    struct Inner<Input>: Subscriber, CustomStringConvertible {
        @usableFromInline typealias Failure = Downstream.Failure

        @usableFromInline let owner: CombineLatestSubscription
        @usableFromInline let index: Int
        @usableFromInline let store: (inout Values, Input) -> Input?
        @usableFromInline let combineIdentifier = CombineIdentifier()

        @inlinable
        init(owner: CombineLatestSubscription, index: Int, store: @escaping (inout Values, Input) -> Input?) {
            self.owner = owner
            self.index = index
            self.store = store
        }

        @inlinable
        func receive(subscription: Subscription) {
            owner.upstream(index, subscribed: subscription)
        }

        @inlinable
        func receive(_ input: Input) -> Subscribers.Demand {
            // Demand was forwarded up front; the emitter queues tuples the downstream cannot take yet.
            owner.upstream(index, received: input, store: store)
            return .none
        }

        @inlinable
        func receive(completion: Subscribers.Completion<Downstream.Failure>) {
            owner.upstream(index, completed: completion)
        }

        @usableFromInline
        var description: String { "CombineLatest" }
    }
}
