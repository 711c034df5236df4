/// A publisher that publishes changes from observable objects: the default type of ``ObservableObject``'s
/// `objectWillChange`.
///
/// `send()` announces, to every subscriber with demand, that the object is about to change. `@Published` properties of
/// an ``ObservableObject`` call it for you before each change; call it yourself before other changes.
///
/// ```swift
/// final class Counter: ObservableObject {
///     var count = 0 {
///         willSet { objectWillChange.send() }
///     }
/// }
/// let counter = Counter()
/// let cancellable = counter.objectWillChange.sink { print("will change") }
/// counter.count += 1   // prints "will change"
/// ```
///
/// **Demand:** per subscriber; an announcement made while a subscriber has no demand is dropped for it (as a
/// `PassthroughSubject` does). Apple's Combine delivers to a subscriber that has requested anything at all, ignoring
/// the amount; Untangle keeps demand exact (the threading contract), so subscribers that request `.unlimited`
/// (`sink`, `assign`) see no difference and bounded ones receive what they asked for.
/// **Thread safety:** `send()`, `subscribe` and every subscription's `request`/`cancel` may be called from any thread,
/// concurrently; each subscriber receives one signal at a time.
public final class ObservableObjectPublisher: Publisher, @unchecked Sendable {
    /// The kind of values published by this publisher: `Void`.
    public typealias Output = Void

    /// The kind of errors this publisher might publish: it never fails.
    public typealias Failure = Never

    private let core = SubjectCore<Void, Never>(
        current: nil, policy: .dropWithoutDemand, kind: .observableObjectPublisher)

    /// Creates an observable object publisher.
    public init() {}

    /// Attaches a subscriber; it receives an announcement for every `send()` made while it has demand.
    public func receive<S: Subscriber>(subscriber: S) where S.Input == Void, S.Failure == Never {
        core.subscribe(subscriber)
    }

    /// Sends the changed value to the downstream subscriber.
    public func send() {
        core.send(())
    }
}
