import Untangle

extension Publisher {
    /// Publishes the value at `index` (counting values from 0, on each subscription) and finishes, or fails with
    /// ``ArgumentOutOfRange`` when the upstream finishes before sending that many values: RxSwift's `element(at:)`.
    ///
    /// Combine's `output(at:)` finishes quietly in that case, and on a sequence's publisher takes a collection index
    /// (`(1..<7).publisher.output(at: 2)` is 2), where this counts values (`element(at: 2)` is 3).
    ///
    /// ```swift
    /// let cancellable = [10, 20, 30].publisher.element(at: 1)
    ///     .sink(receiveCompletion: { print($0) }, receiveValue: { print($0) })   // 20, finished
    /// let tooFar = [10].publisher.element(at: 1)   // fails with ArgumentOutOfRange(index: 1)
    /// ```
    ///
    /// - Precondition: `index` is not negative (RxSwift stops the program too).
    ///
    /// **Demand:** one upstream value per value skipped is asked for again, so the value at `index` is delivered
    /// within the subscriber's first unit of demand; once delivered, the upstream is cancelled.
    /// **Thread safety:** `request`/`cancel` from any thread; values are counted on the delivering thread (the
    /// upstream's values are serialized).
    public func element(at index: Int) -> Publishers.ElementAt<Self> {
        precondition(index >= 0, "element(at:): the index must not be negative (got \(index))")
        return Publishers.ElementAt(upstream: self, index: index)
    }
}

/// The failure of ``Untangle/Publisher/element(at:)`` when the upstream finishes before the value at `index`:
/// RxSwift's `RxError.argumentOutOfRange`.
///
/// ```swift
/// [1].publisher.element(at: 3)   // fails with ArgumentOutOfRange(index: 3)
/// ```
///
/// **Thread safety:** a value.
public struct ArgumentOutOfRange: Error, Hashable, Sendable {
    /// The index that was asked for.
    public let index: Int

    /// Creates the error for `index`.
    public init(index: Int) {
        self.index = index
    }
}

extension Publishers {
    /// A publisher of the upstream's value at an index; see `element(at:)`. A step operator on the core's step
    /// skeleton (`StepSubscription`), as `enumerated()` is.
    ///
    /// ```swift
    /// let second: Publishers.ElementAt<Publishers.Sequence<[Int], Never>> = [1, 2].publisher.element(at: 1)
    /// ```
    ///
    /// **Demand:** see ``Publisher/element(at:)``.
    /// **Thread safety:** see ``Publisher/element(at:)``.
    public struct ElementAt<Upstream: Publisher>: Publisher {
        /// The upstream's values.
        public typealias Output = Upstream.Output
        /// The upstream's failure, or ``ArgumentOutOfRange``.
        public typealias Failure = Error

        /// The publisher whose value is taken.
        public let upstream: Upstream
        /// How many values are skipped before the one published.
        public let index: Int

        /// Creates the operator.
        public init(upstream: Upstream, index: Int) {
            self.upstream = upstream
            self.index = index
        }

        /// Subscribes `subscriber` through the operator.
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            // The values still to skip, touched only by the upstream's serialized values: no lock.
            let remaining = OperatorVariable<Int>(index)
            let index = index
            upstream.subscribe(
                StepSubscription(
                    downstream: subscriber, name: "ElementAt",
                    step: { value in
                        guard remaining.value == 0 else {
                            remaining.value -= 1
                            return .skip
                        }
                        return .emitThenFinish(value)
                    },
                    // Reached only while the value has not come: the step's finish ends the operator itself.
                    completion: { completion in
                        switch completion {
                        case .finished: return .failure(ArgumentOutOfRange(index: index))
                        case .failure(let error): return .failure(error)
                        }
                    }))
        }
    }
}
