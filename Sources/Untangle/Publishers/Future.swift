import UntangleSync

/// A publisher that eventually produces a single value and then finishes or fails.
///
/// The closure runs once, synchronously in `init`; it receives a promise to call (from any thread, at any time) with
/// the result. Every subscriber, whenever it subscribes, receives that one result: a value followed by `.finished`,
/// or the failure. Calls of the promise after the first are ignored.
///
/// ```swift
/// let answer = Future<Int, Never> { promise in
///     DispatchQueue.global().async { promise(.success(42)) }
/// }
/// let cancellable = answer.sink { print($0) }   // prints 42, later
/// ```
///
/// **Demand:** a success value waits for the subscriber's first request, then `.finished` follows at once; a failure
/// is delivered without demand.
/// **Thread safety:** the promise, `subscribe`, `request` and `cancel` may be called from any thread, concurrently.
/// Each subscriber receives its subscription first and the result once, never overlapping. The result is delivered
/// on the thread that fulfils the promise (for subscribers with demand at that moment) or on the thread whose
/// request makes delivery possible.
public final class Future<Output, Failure: Error>: Publisher, @unchecked Sendable {
    /// A function that the closure calls to resolve the future.
    public typealias Promise = (Result<Output, Failure>) -> Void

    @usableFromInline
    struct State {
        @usableFromInline var result: Result<Output, Failure>?
        @usableFromInline var conduits: [FutureConduit] = []

        @inlinable
        init() {}
    }

    @usableFromInline let state = LockedBox(tracking: State())

    /// Creates a publisher that invokes a promise closure when the publisher emits an element.
    ///
    /// - Parameter attemptToFulfill: Runs at once, in this initializer; it receives the promise to call.
    @inlinable
    public init(_ attemptToFulfill: @escaping (@escaping Promise) -> Void) {
        attemptToFulfill { [self] result in
            self.resolve(result)
        }
    }

    /// Attaches a subscriber, which receives the result once it has demand (values) or at once (failures).
    //
    // Performance: `@inlinable`, so the subscription is made, started and driven by code specialized for the
    // subscriber's type in the client: its `request`, `cancel` and resolution are reached through closures formed
    // in its `@inlinable` initializer (see `SynchronousSourceSubscription`). Unspecialized, every use of the
    // emitter's generic types cost a runtime metadata lookup: 258 per `Future { }.map { }.flatMap { Just($0) }.sink`
    // subscribed and cancelled, three quarters of its instructions.
    @inlinable
    public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
        let subscription = FutureSubscription(downstream: subscriber, future: self)
        let result = state.withCriticalSection { state -> Result<Output, Failure>? in
            if state.result == nil {
                state.conduits.append(subscription)
            }
            return state.result
        }
        // A result already there is handed to the emitter before the subscription callout, which only queues it:
        // a request the subscriber makes inside `receive(subscription:)` then gets the value and `.finished` there,
        // nested in its `request` call, as Combine's Future (and `Just`) deliver; a failure goes right after the
        // callout, or inside it at the first request. Resolved after the callout, a value requested inside it came
        // only once `receive(subscription:)` returned, after anything the subscriber did there (an operator such as
        // `throttle`, which asks before its own subscriber has asked, then kept a value Combine drops; found by the
        // differential check's time mode, seed 437).
        if let result {
            subscription.emitter.resolve(result)
        }
        subscription.emitter.start(subscription: subscription)
        subscription.endPresentationIfDelivered(keepingParent: result == nil)
    }

    @inlinable
    func resolve(_ result: Result<Output, Failure>) {
        let conduits = state.withCriticalSection { state -> [FutureConduit] in
            guard state.result == nil else { return [] }
            state.result = result
            defer { state.conduits = [] }
            return state.conduits
        }
        for conduit in conduits {
            conduit.resolveEntry(conduit, result)
        }
    }

    @usableFromInline
    func remove(_ conduit: FutureConduit) {
        let removed = state.withCriticalSection { state -> FutureConduit? in
            guard let index = state.conduits.firstIndex(where: { $0 === conduit }) else { return nil }
            return state.conduits.remove(at: index)
        }
        withExtendedLifetime(removed) {}
    }

    /// A subscription waiting for the promise, as the future keeps it: `resolveEntry` is formed in the subscription's
    /// `@inlinable` initializer, so the future's unspecialized `resolve` reaches code specialized for the subscriber.
    @usableFromInline
    class FutureConduit {
        @usableFromInline let resolveEntry: (FutureConduit, Result<Output, Failure>) -> Void

        @inlinable
        init(resolveEntry: @escaping (FutureConduit, Result<Output, Failure>) -> Void) {
            self.resolveEntry = resolveEntry
        }
    }

    // What the subscription shows in its mirror, as Combine's does: the future (`parent`, also `subject`) and the
    // downstream while the subscription is live, and whether anything was ever requested. The downstream is let go
    // once the emitter delivered the completion; the parent too when the promise's own call delivered it (after a
    // delivery started by a request Combine keeps showing the parent) or on cancel.
    @usableFromInline
    struct Presentation<Downstream> {
        @usableFromInline weak var parent: Future?
        @usableFromInline var downstream: Downstream?
        @usableFromInline var hasAnyDemand = false

        @inlinable
        init(parent: Future, downstream: Downstream) {
            self.parent = parent
            self.downstream = downstream
        }
    }

    @usableFromInline
    final class FutureSubscription<Downstream: Subscriber>: FutureConduit, Subscription,
        CustomStringConvertible, CustomReflectable, CustomPlaygroundDisplayConvertible, @unchecked Sendable
    where Downstream.Input == Output, Downstream.Failure == Failure {
        @usableFromInline let emitter: Emitter<Downstream>
        @usableFromInline weak var future: Future?
        @usableFromInline let presentation: LockedBox<Presentation<Downstream>>
        // Requests (non-nil) and cancel (nil), specialized: `request` and `cancel` are reached through the
        // `Subscription` witness table, which points at this class's unspecialized generic code. Formed in the
        // `@inlinable` initializer, which the client specializes; it captures nothing.
        @usableFromInline let controlEntry: (FutureSubscription, Subscribers.Demand?) -> Void

        @inlinable
        init(downstream: Downstream, future: Future) {
            emitter = Emitter(downstream: downstream, policy: .unbounded)
            self.future = future
            presentation = LockedBox(tracking: Presentation(parent: future, downstream: downstream))
            controlEntry = { subscription, demand in
                if let demand {
                    subscription.specializedRequest(demand)
                } else {
                    subscription.specializedCancel()
                }
            }
            super.init(resolveEntry: { conduit, result in
                RawReference.downcast(conduit, to: FutureSubscription.self).specializedResolve(result)
            })
        }

        @inlinable
        func specializedResolve(_ result: Result<Output, Failure>) {
            emitter.resolve(result)
            endPresentationIfDelivered(keepingParent: false)
        }

        /// Once the emitter has let go of the downstream (completion delivered), the mirror lets go of it too.
        @inlinable
        func endPresentationIfDelivered(keepingParent: Bool) {
            guard emitter.critical({ $0.isReleased }) else { return }
            let released = presentation.withCriticalSection { presentation -> (Future?, Downstream?) in
                let parent = keepingParent ? nil : presentation.parent
                if !keepingParent { presentation.parent = nil }
                return (parent, presentation.downstream.take())
            }
            withExtendedLifetime(released) {}
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

        @inlinable
        func specializedRequest(_ demand: Subscribers.Demand) {
            presentation.withCriticalSection { $0.hasAnyDemand = true }
            emitter.request(demand)
            endPresentationIfDelivered(keepingParent: true)
        }

        @inlinable
        func specializedCancel() {
            let released = presentation.withCriticalSection { presentation -> (Future?, Downstream?) in
                defer { presentation.parent = nil }
                return (presentation.parent, presentation.downstream.take())
            }
            withExtendedLifetime(released) {}
            if emitter.cancel() {
                future?.remove(self)
            }
        }

        @usableFromInline
        var description: String { "Future" }

        @usableFromInline
        var customMirror: Mirror {
            let (parent, downstream, hasAnyDemand) = presentation.withCriticalSection {
                ($0.parent, $0.downstream, $0.hasAnyDemand && $0.downstream != nil)
            }
            return Mirror(
                subjectLike: self, parent: parent as Any, downstream: downstream as Any, ("hasAnyDemand", hasAnyDemand))
        }

        @usableFromInline
        var playgroundDescription: Any { description }
    }
}

extension SerialEmitter {
    /// Delivers a future's one result (`Future`, UntangleExtras' `AsyncFuture`): the value, then `.finished` after it,
    /// or the failure at once.
    @inlinable
    package func resolve(_ result: Result<Downstream.Input, Downstream.Failure>) {
        switch result {
        case .success(let value):
            offer(value)
            complete(.finished, order: .afterQueuedValues)
        case .failure(let error):
            complete(.failure(error), order: .immediately)
        }
    }
}
