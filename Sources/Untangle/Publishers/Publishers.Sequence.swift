extension Sequence {
    /// A publisher that emits the elements of this sequence, then finishes.
    ///
    /// ```swift
    /// let cancellable = [1, 2, 3].publisher.sink { print($0) }
    /// ```
    @inlinable
    public var publisher: Publishers.Sequence<Self, Never> {
        Publishers.Sequence(sequence: self)
    }
}

extension Publishers {
    /// A publisher that publishes a given sequence of elements.
    ///
    /// Each subscription iterates the sequence afresh (so a single-pass sequence should be subscribed to once).
    ///
    /// ```swift
    /// let numbers = Publishers.Sequence<[Int], Never>(sequence: [1, 2, 3])
    /// ```
    ///
    /// **Demand:** one element per unit of demand (`request(.none)` is ignored); `.finished` follows the last element
    /// at once, without demand. An empty sequence finishes at subscription.
    /// **Thread safety:** may be subscribed to from any thread; `request`/`cancel` may be called from any thread,
    /// concurrently, and from inside `receive` (a request there only adds demand; the emission loop delivers, so
    /// stack depth stays constant however long the sequence). The sequence's iterator runs with no lock held.
    public struct Sequence<Elements: Swift.Sequence, Failure: Error>: Publisher {
        /// The kind of values published by this publisher.
        public typealias Output = Elements.Element

        /// The sequence of elements to publish.
        public let sequence: Elements

        /// Creates a publisher for a sequence of elements.
        @inlinable
        public init(sequence: Elements) {
            self.sequence = sequence
        }

        /// Attaches a subscriber, which receives the elements as it requests them.
        @inlinable  // specialized in the caller (see SynchronousSourceSubscription)
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Elements.Element, S.Failure == Failure {
            SynchronousSourceSubscription.subscribe(
                subscriber, to: SequenceSource<Elements, Failure>(sequence: sequence), completion: .finished)
        }
    }
}

/// A sequence for a ``SynchronousSourceSubscription``, presented as Combine presents a sequence's subscription: it
/// describes itself as the sequence (`"[1, 2, 3]"`, `"1...5"`) and reflects it as its `sequence` child while it runs,
/// then is `"Sequence"` with an empty `sequence`. A zero request is ignored.
@usableFromInline
struct SequenceSource<Elements: Sequence, Failure: Error>: SynchronousSource {
    @usableFromInline let sequence: Elements

    @inlinable
    init(sequence: Elements) {
        self.sequence = sequence
    }

    @inlinable
    static var toleratesZeroDemand: Bool { true }

    @inlinable
    func makeElements() -> Elements.Iterator {
        sequence.makeIterator()
    }

    @usableFromInline
    static func describe(_ source: Self?) -> String {
        source.map { String(describing: $0.sequence) } ?? "Sequence"
    }

    @usableFromInline
    static func mirrorChildren(of source: Self?, completion: Subscribers.Completion<Failure>) -> [Mirror.Child] {
        [(label: "sequence", value: source.map { $0.sequence as Any } ?? [Elements.Element]())]
    }
}

extension Publishers.Sequence: Equatable where Elements: Equatable {}
extension Publishers.Sequence: Sendable where Elements: Sendable {}
