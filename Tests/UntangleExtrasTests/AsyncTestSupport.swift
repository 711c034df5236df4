import Foundation
import Untangle
import UntangleSync
import XCTest

/// An endless sequence of 0, 1, 2, … that counts how many times `next()` was called.
struct CountingSequence: AsyncSequence, Sendable {
    typealias Element = Int
    let pulls = LockedBox(0)

    struct AsyncIterator: AsyncIteratorProtocol {
        let pulls: LockedBox<Int>
        mutating func next() async -> Int? {
            pulls.withLock { pulls in
                defer { pulls += 1 }
                return pulls
            }
        }
    }

    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(pulls: pulls) }
}

/// A sequence that yields its elements, then throws.
struct ThrowingSequence: AsyncSequence, Sendable {
    typealias Element = Int
    let elements: [Int]
    let error: BridgeTestError

    struct AsyncIterator: AsyncIteratorProtocol {
        var remaining: [Int]
        let error: BridgeTestError
        mutating func next() async throws -> Int? {
            if remaining.isEmpty { throw error }
            return remaining.removeFirst()
        }
    }

    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(remaining: elements, error: error) }
}

struct BridgeTestError: Error, Equatable {
    let code: Int
}

/// A multi-pass sequence of the given elements.
struct FiniteSequence: AsyncSequence, Sendable {
    typealias Element = Int
    let elements: [Int]

    struct AsyncIterator: AsyncIteratorProtocol {
        var remaining: ArraySlice<Int>
        mutating func next() async -> Int? { remaining.popFirst() }
    }

    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(remaining: elements[...]) }
}
