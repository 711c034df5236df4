import Foundation
import UntangleSync

/// A stable, printable identity for the thread a signal arrived on.
///
/// Every thread gets a number the first time a recording tool sees it (1, 2, 3, ... in order of first sight, for the
/// whole process), so a history reads "value(1) on thread #3" and two records can be compared for "same thread".
/// The main thread reads `main`, a named thread reads its name.
///
/// ```swift
/// let here = RecordedThread.current
/// let record = subscriber.records[1]
/// XCTAssertEqual(record.thread, here, "delivered synchronously on the subscribing thread")
/// ```
///
/// **Thread safety:** ``current`` may be read from any thread; values are plain data.
public struct RecordedThread: Hashable, Sendable, CustomStringConvertible {
    /// The process-wide number given to the thread when a recording tool first saw it.
    public let number: Int

    /// The thread's name (`Thread.current.name`) when it was seen, if it has a non-empty one.
    public let name: String?

    /// Whether this is the main thread.
    public let isMain: Bool

    private static let numberOfCurrentThread = ThreadLocalWord()

    private static let lastNumber = LockedBox(0)

    /// The calling thread.
    public static var current: RecordedThread {
        var number = numberOfCurrentThread.value
        if number == 0 {
            number = lastNumber.withLock { last in
                last += 1
                return last
            }
            numberOfCurrentThread.value = number
        }
        let name = Thread.current.name
        return RecordedThread(
            number: number, name: (name?.isEmpty ?? true) ? nil : name, isMain: Thread.isMainThread)
    }

    /// `main`, the thread's name, or `thread #n`.
    public var description: String {
        if isMain { return "main" }
        if let name { return name }
        return "thread #\(number)"
    }

    /// Two records name the same thread when their numbers are equal (the name may have changed in between).
    public static func == (lhs: RecordedThread, rhs: RecordedThread) -> Bool {
        lhs.number == rhs.number
    }

    /// Hashes the number only, consistently with `==`.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(number)
    }
}
