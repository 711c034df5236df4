import Foundation

/// A type that defines methods for encoding.
///
/// `JSONEncoder` and `PropertyListEncoder` conform, so `encode(encoder:)` accepts them directly.
///
/// ```swift
/// let data = try JSONEncoder().encode(Point(x: 1, y: 2))   // TopLevelEncoder.Output == Data
/// ```
///
/// **Thread safety:** as the conforming encoder (Foundation's encoders may be used from one thread at a time).
public protocol TopLevelEncoder {
    /// The type this encoder produces.
    associatedtype Output

    /// Encodes an instance of the indicated type.
    func encode<T: Encodable>(_ value: T) throws -> Output
}

/// A type that defines methods for decoding.
///
/// `JSONDecoder` and `PropertyListDecoder` conform, so `decode(type:decoder:)` accepts them directly.
///
/// ```swift
/// let point = try JSONDecoder().decode(Point.self, from: data)
/// ```
///
/// **Thread safety:** as the conforming decoder.
public protocol TopLevelDecoder {
    /// The type this decoder accepts.
    associatedtype Input

    /// Decodes an instance of the indicated type.
    func decode<T: Decodable>(_ type: T.Type, from: Input) throws -> T
}

extension JSONEncoder: TopLevelEncoder {}
extension JSONDecoder: TopLevelDecoder {}
extension PropertyListEncoder: TopLevelEncoder {}
extension PropertyListDecoder: TopLevelDecoder {}
