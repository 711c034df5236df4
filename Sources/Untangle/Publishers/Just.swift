/// A publisher that emits an output to each subscriber just once, and then finishes.
///
/// ```swift
/// let cancellable = Just(42).sink { print($0) }   // prints 42
/// ```
///
/// **Demand:** the value is delivered on the first request (of any positive demand), followed at once by
/// `.finished`.
/// **Thread safety:** may be subscribed to from any thread; each subscription's `request` and `cancel` may be called
/// from any thread, concurrently; the value is delivered once, on the thread whose request starts the delivery.
public struct Just<Output>: Publisher {
    /// Just never fails.
    public typealias Failure = Never

    /// The one element that the publisher emits.
    public let output: Output

    /// Creates a publisher that emits `output` once and finishes.
    public init(_ output: Output) {
        self.output = output
    }

    /// Attaches a subscriber, which receives the value on its first request.
    @inlinable  // specialized in the caller (see SynchronousSourceSubscription)
    public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Never {
        SynchronousSourceSubscription.subscribe(
            subscriber, to: SingleValueSource<Output, Never, JustName>(value: output), completion: .finished)
    }
}

/// One value for a ``SynchronousSourceSubscription``, presented as Combine presents the subscriptions of `Just`,
/// `Optional.Publisher` and `Result.Publisher`: a fixed name and the value as the mirror's one unlabeled child (while
/// the subscription runs). A zero request stops the program.
@usableFromInline
struct SingleValueSource<Output, Failure: Error, Name: SingleValueSourceName>: SynchronousSource {
    @usableFromInline let value: Output

    @inlinable
    init(value: Output) {
        self.value = value
    }

    @inlinable
    static var toleratesZeroDemand: Bool { false }

    @inlinable
    func makeElements() -> CollectionOfOne<Output>.Iterator {
        CollectionOfOne(value).makeIterator()
    }

    @usableFromInline
    static func describe(_ source: Self?) -> String {
        Name.name
    }

    @usableFromInline
    static func mirrorChildren(of source: Self?, completion: Subscribers.Completion<Failure>) -> [Mirror.Child] {
        source.map { [(label: nil, value: $0.value)] } ?? []
    }
}

/// The name a ``SingleValueSource``'s subscription has in Combine.
@usableFromInline
protocol SingleValueSourceName {
    static var name: String { get }
}

/// `Just`'s subscription name.
@usableFromInline
enum JustName: SingleValueSourceName {
    @usableFromInline static var name: String { "Just" }
}

extension Just: Equatable where Output: Equatable {}
extension Just: Sendable where Output: Sendable {}
