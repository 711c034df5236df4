import UntangleSync

extension Publisher {
    /// Transforms elements from the upstream publisher by providing the current element to a closure along with
    /// the last value returned by the closure.
    ///
    /// ```swift
    /// let cancellable = (1...4).publisher
    ///     .scan(0, +)
    ///     .sink { print($0) }   // 1, 3, 6, 10
    /// ```
    ///
    /// **Demand:** passed through unchanged: the downstream's subscription is the upstream's own.
    /// **Thread safety:** as the upstream; the closure runs on the thread that delivers each upstream value, with no
    /// lock held.
    public func scan<T>(
        _ initialResult: T, _ nextPartialResult: @escaping (T, Output) -> T
    )
        -> Publishers.Scan<Self, T>
    {
        return Publishers.Scan(upstream: self, initialResult: initialResult, nextPartialResult: nextPartialResult)
    }

    /// Transforms elements from the upstream publisher by providing the current element to an error-throwing
    /// closure along with the last value returned by the closure.
    ///
    /// If the closure throws, the publisher cancels the upstream and fails with the error.
    ///
    /// ```swift
    /// let cancellable = [1, 2, 0].publisher
    ///     .tryScan(10) { total, next in
    ///         guard next != 0 else { throw DivisionByZero() }
    ///         return total / next
    ///     }
    ///     .sink(receiveCompletion: { print($0) }, receiveValue: { print($0) })   // 10, 5, then failure
    /// ```
    ///
    /// **Demand:** passed through unchanged.
    /// **Thread safety:** as ``Publisher/scan(_:_:)``; after a throw the upstream is cancelled exactly once and
    /// nothing more reaches the subscriber.
    public func tryScan<T>(
        _ initialResult: T, _ nextPartialResult: @escaping (T, Output) throws -> T
    )
        -> Publishers.TryScan<Self, T>
    {
        return Publishers.TryScan(upstream: self, initialResult: initialResult, nextPartialResult: nextPartialResult)
    }
}

extension Publishers {
    /// A publisher that transforms elements by applying a closure that receives its previous return value and the
    /// next element from the upstream publisher.
    ///
    /// **Demand:** see ``Publisher/scan(_:_:)``.
    /// **Thread safety:** see ``Publisher/scan(_:_:)``.
    public struct Scan<Upstream: Publisher, Output>: Publisher {
        /// The kind of errors this publisher might publish: the upstream's.
        public typealias Failure = Upstream.Failure

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream

        /// The previous result, to pass to the closure along with the first element.
        public let initialResult: Output

        /// A closure that takes as its arguments the previous value returned by the closure and the next element
        /// emitted from the upstream publisher.
        public let nextPartialResult: (Output, Upstream.Output) -> Output

        /// Creates the publisher.
        public init(
            upstream: Upstream, initialResult: Output, nextPartialResult: @escaping (Output, Upstream.Output) -> Output
        ) {
            self.upstream = upstream
            self.initialResult = initialResult
            self.nextPartialResult = nextPartialResult
        }

        /// Attaches the subscriber through a transparent wrapper.
        public func receive<S: Subscriber>(subscriber: S) where Output == S.Input, Upstream.Failure == S.Failure {
            upstream.subscribe(
                ScanInner(downstream: subscriber, initialResult: initialResult, nextPartialResult: nextPartialResult))
        }
    }

    /// A publisher that transforms elements by applying an error-throwing closure that receives its previous
    /// return value and the next element from the upstream publisher.
    ///
    /// **Demand:** see ``Publisher/tryScan(_:_:)``.
    /// **Thread safety:** see ``Publisher/tryScan(_:_:)``.
    public struct TryScan<Upstream: Publisher, Output>: Publisher {
        /// Any error: the upstream's or the one the closure threw.
        public typealias Failure = Error

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream

        /// The previous result, to pass to the closure along with the first element.
        public let initialResult: Output

        /// An error-throwing closure that takes as its arguments the previous value returned by the closure and
        /// the next element emitted from the upstream publisher.
        public let nextPartialResult: (Output, Upstream.Output) throws -> Output

        /// Creates the publisher.
        public init(
            upstream: Upstream, initialResult: Output,
            nextPartialResult: @escaping (Output, Upstream.Output) throws -> Output
        ) {
            self.upstream = upstream
            self.initialResult = initialResult
            self.nextPartialResult = nextPartialResult
        }

        /// Attaches the subscriber.
        public func receive<S: Subscriber>(subscriber: S) where Output == S.Input, S.Failure == Error {
            let next = nextPartialResult
            let accumulator = OperatorVariable(initialResult)
            // As for scan: the accumulator lives on the (serialized) upstream signal path; the mirror, which may be
            // asked for from any thread, shows a copy kept behind a lock (the previous copy is released after
            // unlocking).
            let shownResult = LockedBox(tracking: initialResult)
            upstream.subscribe(
                StepSubscription(
                    downstream: subscriber, name: "TryScan", behavior: .valuesOnly,
                    mirror: .custom { downstream, upstream, ended in
                        let status = ended ? "terminal" : upstream.map { "subscribed(\($0))" } ?? "awaiting"
                        let result = shownResult.withCriticalSection { $0 }
                        return [("downstream", downstream), ("status", status), ("result", result)] as [Mirror.Child]
                    },
                    tryStep: { value in
                        let result = try next(accumulator.value, value)
                        accumulator.value = result
                        let previous = shownResult.withCriticalSection { shown -> Output in
                            defer { shown = result }
                            return shown
                        }
                        withExtendedLifetime(previous) {}
                        return .emit(result)
                    }))
        }
    }
}

// Transparent, as in Combine: the downstream receives the upstream's own subscription, and every signal passes
// straight through. The accumulator lives on the (serialized) upstream signal path; a copy behind a lock is what
// `customMirror` shows, since the mirror may be asked for from any thread. Storing the copy is the one lock round
// trip per value (the previous copy is released after unlocking).
private final class ScanInner<Input, Downstream: Subscriber>: Subscriber, CustomStringConvertible, CustomReflectable,
    CustomPlaygroundDisplayConvertible, @unchecked Sendable
{
    typealias Failure = Downstream.Failure

    let downstream: Downstream
    let nextPartialResult: (Downstream.Input, Input) -> Downstream.Input
    @exclusivity(unchecked) var result: Downstream.Input
    let shownResult: LockedBox<Downstream.Input>

    init(
        downstream: Downstream, initialResult: Downstream.Input,
        nextPartialResult: @escaping (Downstream.Input, Input) -> Downstream.Input
    ) {
        self.downstream = downstream
        self.nextPartialResult = nextPartialResult
        result = initialResult
        shownResult = LockedBox(tracking: initialResult)
    }

    func receive(subscription: Subscription) {
        downstream.receive(subscription: subscription)
    }

    func receive(_ input: Input) -> Subscribers.Demand {
        result = nextPartialResult(result, input)
        let next = result
        let previous = shownResult.withCriticalSection { shown -> Downstream.Input in
            defer { shown = next }
            return shown
        }
        withExtendedLifetime(previous) {}
        CalloutCheck.assertNoLockHeld("scan passing on a value")
        return downstream.receive(next)
    }

    func receive(completion: Subscribers.Completion<Downstream.Failure>) {
        downstream.receive(completion: completion)
    }

    var description: String { "Scan" }

    var playgroundDescription: Any { description }

    var customMirror: Mirror {
        let result = shownResult.withCriticalSection { $0 }
        return Mirror(self, children: [("downstream", downstream), ("result", result)] as [Mirror.Child])
    }
}
