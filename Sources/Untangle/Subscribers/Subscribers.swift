/// A namespace for types that serve as subscribers.
///
/// ```swift
/// let sink = Subscribers.Sink<Int, Never>(receiveCompletion: { _ in }, receiveValue: { print($0) })
/// [1, 2, 3].publisher.subscribe(sink)
/// ```
///
/// **Demand:** see each subscriber.
/// **Thread safety:** see each subscriber.
public enum Subscribers {}
