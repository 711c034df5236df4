// Performance: every default is `@inlinable`, so a conforming subscriber specialized in the client (map's, filter's)
// forwards exactly as it did when each one wrote these members itself; the signal forwarders are also
// `@inline(__always)`, so that the `Subscriber` witness of a conforming type that is not specialized contains the
// forwarding itself, instead of calling the generic default with this protocol's witness table (looked up at run
// time, `swift_getWitnessTable`: about 100 instructions per signal in core-future-map-flatmap).
/// A stateless operator's subscriber that its downstream sees through (map, filter, compactMap, setFailureType,
/// mapError...): it bears the downstream's identity, hands the downstream the upstream's own subscription (so
/// requests and cancel cost nothing extra), and by default passes values and the completion on unchanged. A
/// conforming subscriber writes only what its operator changes, usually `receive(_:)`.
///
/// ```swift
/// struct Inner<Downstream: Subscriber>: TransparentSubscriber where Downstream.Input == Int {
///     typealias Input = Int
///     typealias Failure = Downstream.Failure
///     let downstream: Downstream
///     func receive(_ input: Int) -> Subscribers.Demand { downstream.receive(input * 2) }
/// }
/// ```
///
/// **Demand:** the downstream's, unchanged, unless the conforming subscriber's `receive(_:)` says otherwise.
/// **Thread safety:** as the downstream: the upstream's signals are passed on, on the thread that sends them.
@usableFromInline
package protocol TransparentSubscriber: Subscriber {
    /// The subscriber this one stands in front of.
    associatedtype Downstream: Subscriber
    /// The subscriber this one stands in front of.
    var downstream: Downstream { get }
}

extension TransparentSubscriber {
    /// The downstream's identity.
    @inlinable
    @inline(__always)
    package var combineIdentifier: CombineIdentifier { downstream.combineIdentifier }

    /// Hands the downstream the upstream's own subscription.
    @inlinable
    @inline(__always)
    package func receive(subscription: Subscription) {
        downstream.receive(subscription: subscription)
    }
}

extension TransparentSubscriber where Input == Downstream.Input {
    /// Passes the value on; returns the downstream's demand.
    @inlinable
    @inline(__always)
    package func receive(_ input: Input) -> Subscribers.Demand {
        downstream.receive(input)
    }
}

extension TransparentSubscriber where Failure == Downstream.Failure {
    /// Passes the completion on.
    @inlinable
    @inline(__always)
    package func receive(completion: Subscribers.Completion<Failure>) {
        downstream.receive(completion: completion)
    }
}

extension TransparentSubscriber where Self: CustomStringConvertible {
    /// The description.
    @inlinable
    package var playgroundDescription: Any { description }

    /// No children, as Combine's operators show themselves.
    @inlinable
    package var customMirror: Mirror { Mirror(self, children: []) }
}
