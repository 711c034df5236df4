import Dispatch

/// A marble diagram that could not be parsed: what is wrong and where.
///
/// ```swift
/// do { _ = try Marbles.parse("-a-(b", values: ["a": 1, "b": 2]) as [TimedEvent<Int, Never>] }
/// catch let error as MarbleSyntaxError { print(error) }   // "-a-(b": unclosed group opened at offset 3
/// ```
///
/// **Thread safety:** a value type.
public struct MarbleSyntaxError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The diagram.
    public var diagram: String
    /// The character offset of the problem in the diagram.
    public var offset: Int
    /// What is wrong.
    public var message: String

    /// Creates an error.
    public init(diagram: String, offset: Int, message: String) {
        self.diagram = diagram
        self.offset = offset
        self.message = message
    }

    /// `"diagram": message at offset n`.
    public var description: String { "\"\(diagram)\": \(message) at offset \(offset)" }
}
