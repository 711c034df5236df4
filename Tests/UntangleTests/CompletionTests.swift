import Foundation
import Untangle
import XCTest

final class CompletionTests: XCTestCase {
    private typealias Completion = Subscribers.Completion<CodableError>

    func testEquatable() {
        XCTAssertEqual(Completion.finished, .finished)
        XCTAssertEqual(Completion.failure(CodableError(code: 1)), .failure(CodableError(code: 1)))
        XCTAssertNotEqual(Completion.failure(CodableError(code: 1)), .failure(CodableError(code: 2)))
        XCTAssertNotEqual(Completion.finished, .failure(CodableError(code: 1)))
        XCTAssertEqual(Subscribers.Completion<Never>.finished, .finished)
    }

    func testHashable() {
        let set: Set<Completion> = [
            .finished, .finished, .failure(CodableError(code: 1)), .failure(CodableError(code: 1)),
        ]
        XCTAssertEqual(set, [.finished, .failure(CodableError(code: 1))])
    }

    func testCodableRoundTrip() throws {
        let completions: [Completion] = [.finished, .failure(CodableError(code: 7))]
        let data = try JSONEncoder().encode(completions)
        XCTAssertEqual(try JSONDecoder().decode([Completion].self, from: data), completions)
    }

    func testEncodedForm() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let finished = try encoder.encode(Completion.finished)
        XCTAssertEqual(String(decoding: finished, as: UTF8.self), #"{"success":true}"#)
        let failure = try encoder.encode(Completion.failure(CodableError(code: 7)))
        XCTAssertEqual(String(decoding: failure, as: UTF8.self), #"{"error":{"code":7},"success":false}"#)
    }

    func testDecodingAFailureWithoutAnErrorThrows() {
        let data = Data(#"{"success":false}"#.utf8)
        XCTAssertThrowsError(try JSONDecoder().decode(Completion.self, from: data))
    }

    func testNeverFailingCompletionRoundTrips() throws {
        // `Never` is Codable since Swift 5.9; a `.finished` of a never-failing stream encodes like any other.
        let data = try JSONEncoder().encode(Subscribers.Completion<Never>.finished)
        XCTAssertEqual(try JSONDecoder().decode(Subscribers.Completion<Never>.self, from: data), .finished)
    }
}
