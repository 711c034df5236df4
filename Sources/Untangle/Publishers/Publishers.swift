/// A namespace for types that serve as publishers.
///
/// ```swift
/// let numbers: Publishers.Sequence<[Int], Never> = [1, 2, 3].publisher
/// ```
///
/// **Demand:** see each publisher.
/// **Thread safety:** see each publisher.
public enum Publishers {}
