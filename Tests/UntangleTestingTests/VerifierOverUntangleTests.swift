import Foundation
import Untangle
import UntangleSync
import UntangleTesting
import XCTest

/// PublisherVerifier over every publisher and operator of Untangle: the library's own contract test.
///
/// TO ADD A PUBLISHER OR OPERATOR, ADD ONE LINE to `VerifiedPublishers.cold` (a fresh cold publisher and how many
/// values it promises) or `VerifiedPublishers.hot` (an operator applied to a fresh PassthroughSubject that the
/// verifier drives from several threads). Nothing else changes: every entry runs every rule.
///
/// The class name ends in ConcurrencyTests because several rules drive the publisher from several threads: CI runs
/// it under ThreadSanitizer.
final class VerifierOverUntangleConcurrencyTests: XCTestCase {
    func testEveryColdPublisherKeepsTheContract() {
        for entry in VerifiedPublishers.cold {
            entry.verify().assertPassed { XCTFail($0) }
        }
    }

    func testEveryHotPublisherKeepsTheContract() {
        for entry in VerifiedPublishers.hot {
            entry.verify().assertPassed { XCTFail($0) }
        }
    }

    /// Regression (found by the verifier): demand a subscriber returns from `receive(_:)` used to reach the merge's
    /// emitter but never its upstreams, so initial `.max(1)` plus `.max(1)` per value stalled after one value each.
    func testMergeForwardsDemandReturnedFromReceive() throws {
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(1), demandPerValue: .max(1))
        [1, 2, 3].publisher.merge(with: [10, 20, 30].publisher).subscribe(subscriber)
        XCTAssertEqual(subscriber.values.count, 6, "\(subscriber.events)")
        XCTAssertTrue(subscriber.isCompleted)
    }

    /// Guards the tables themselves: every entry ran the substantive rules (none silently "not applicable").
    func testEveryEntryRunsTheDemandAndCancelRules() {
        for entry in VerifiedPublishers.cold + VerifiedPublishers.hot where entry.promisesValues {
            let report = entry.verify(rules: [.demandStepwise, .cancelIdempotent, .concurrentRequests])
            XCTAssertEqual(report.results.map(\.outcome), [.passed, .passed, .passed], "\(report)")
        }
    }
}

/// One publisher under verification: a name and how to run the verifier on fresh instances of it.
struct VerifiedPublisher {
    let name: String
    let promisesValues: Bool
    let verify: ([VerifierRule]) -> VerificationReport

    func verify(rules: [VerifierRule] = VerifierRule.allCases) -> VerificationReport { verify(rules) }

    /// A cold publisher promising `length` values (`.exactly(n)`: n values, then a completion).
    /// `pulls`: the operator drops upstream values after its last output, so its completion needs extra demand
    /// (see `VerifierOptions.completesWithoutExtraDemand`).
    /// `knownBug`: rules skipped because of a known library bug (each has a skipped reproduction test below).
    static func cold<P: Publisher>(
        _ name: String, _ length: VerifierOptions.Length, pulls: Bool = false, knownBug: [VerifierRule] = [],
        _ make: @escaping () -> P
    ) -> VerifiedPublisher {
        VerifiedPublisher(name: name, promisesValues: length.minimum > 0) { rules in
            let options = VerifierOptions(length: length, completesWithoutExtraDemand: !pulls)
            let rules = rules.filter { !knownBug.contains($0) }
            return PublisherVerifier(name, options: options, publisher: make).verify(rules: rules)
        }
    }

    /// An operator over a fresh `PassthroughSubject`: the verifier sends values into the subject (from several
    /// threads at once) and finishes it.
    static func hot<P: Publisher>(
        _ name: String, _ make: @escaping (PassthroughSubject<Int, TestFailure>) -> P
    ) -> VerifiedPublisher {
        VerifiedPublisher(name: name, promisesValues: true) { rules in
            PublisherVerifier(name, options: VerifierOptions(temperature: .hot, concurrentDrive: true)) {
                let subject = PassthroughSubject<Int, TestFailure>()
                return VerifierFixture(
                    make(subject), drive: { subject.send($0) }, finish: { subject.send(completion: .finished) })
            }.verify(rules: rules)
        }
    }

    /// A hot publisher with its own drive and finish (subjects other than PassthroughSubject).
    static func hot<P: Publisher>(
        _ name: String, knownBug: [VerifierRule] = [], fixture: @escaping () -> VerifierFixture<P>
    ) -> VerifiedPublisher {
        VerifiedPublisher(name: name, promisesValues: true) { rules in
            let rules = rules.filter { !knownBug.contains($0) }
            let options = VerifierOptions(temperature: .hot, concurrentDrive: true)
            return PublisherVerifier(name, options: options, fixture: fixture).verify(rules: rules)
        }
    }
}

private struct Pair: Codable, Equatable {
    var value: Int
}

enum VerifiedPublishers {
    static let hundred = Array(0..<100)
    static let many = Array(0..<20_000)

    // One line per publisher: name, the values it promises, a factory of fresh instances.
    static var cold: [VerifiedPublisher] {
        [
            .cold("Just", .exactly(1)) { Just(1) },
            .cold("Empty", .exactly(0)) { Empty<Int, Never>() },
            .cold("Empty(completeImmediately: false)", .unbounded) { Empty<Int, Never>(completeImmediately: false) },
            .cold("Fail", .exactly(0)) { Fail<Int, TestFailure>(error: TestFailure()) },
            .cold("Deferred", .exactly(100)) { Deferred { hundred.publisher } },
            .cold("Future (fulfilled)", .exactly(1)) { Future<Int, Never> { $0(.success(1)) } },
            .cold("Record", .exactly(100)) {
                Record<Int, TestFailure>(output: hundred, completion: .failure(TestFailure()))
            },
            .cold("Sequence", .exactly(20_000)) { many.publisher },
            .cold("Sequence (endless)", .atLeast(20_000)) { (0...).publisher },
            .cold("Optional.Publisher (some)", .exactly(1)) { Optional(1).publisher },
            .cold("Optional.Publisher (none)", .exactly(0)) { Optional<Int>.none.publisher },
            .cold("Result.Publisher (success)", .exactly(1)) { Result<Int, TestFailure>.success(1).publisher },
            .cold("Result.Publisher (failure)", .exactly(0)) {
                Result<Int, TestFailure>.failure(TestFailure()).publisher
            },
            .cold("AnyPublisher", .exactly(100)) { hundred.publisher.eraseToAnyPublisher() },
            .cold("map", .exactly(20_000)) { many.publisher.map { $0 * 2 } },
            .cold("map(keyPath)", .exactly(100)) { hundred.map { Pair(value: $0) }.publisher.map(\.value) },
            .cold("tryMap", .exactly(20_000)) { many.publisher.tryMap { $0 * 2 } },
            .cold("tryMap (throws)", .exactly(10), pulls: true) {
                hundred.publisher.tryMap { v -> Int in
                    if v == 10 { throw TestFailure() }; return v
                }
            },
            .cold("filter", .exactly(10_000), pulls: true) { many.publisher.filter { $0 % 2 == 0 } },
            .cold("tryFilter", .exactly(10_000), pulls: true) { many.publisher.tryFilter { $0 % 2 == 0 } },
            .cold("compactMap", .exactly(50), pulls: true) { hundred.publisher.compactMap { $0 % 2 == 0 ? $0 : nil } },
            .cold("tryCompactMap", .exactly(50), pulls: true) {
                hundred.publisher.tryCompactMap { $0 % 2 == 0 ? $0 : nil }
            },
            .cold("mapError", .exactly(100)) {
                Record<Int, TestFailure>(output: hundred, completion: .failure(TestFailure())).mapError { $0 as Error }
            },
            .cold("setFailureType", .exactly(100)) { hundred.publisher.setFailureType(to: TestFailure.self) },
            .cold("replaceNil", .exactly(100)) {
                hundred.map { $0 % 2 == 0 ? $0 : nil }.publisher.replaceNil(with: -1)
            },
            .cold("replaceEmpty", .exactly(1)) { Empty<Int, Never>().replaceEmpty(with: 1) },
            .cold("replaceError", .exactly(101)) {
                Record<Int, TestFailure>(output: hundred, completion: .failure(TestFailure())).replaceError(with: -1)
            },
            .cold("scan", .exactly(100)) { hundred.publisher.scan(0, +) },
            .cold("tryScan", .exactly(100)) { hundred.publisher.tryScan(0, +) },
            .cold("reduce", .exactly(1)) { hundred.publisher.reduce(0, +) },
            .cold("tryReduce", .exactly(1)) { hundred.publisher.tryReduce(0, +) },
            .cold("count", .exactly(1)) { hundred.publisher.count() },
            .cold("collect()", .exactly(1)) { hundred.publisher.collect() },
            .cold("collect(_:)", .exactly(34)) { hundred.publisher.collect(3) },
            .cold("min", .exactly(1)) { hundred.publisher.min() },
            .cold("max", .exactly(1)) { hundred.publisher.max() },
            .cold("tryMin", .exactly(1)) { hundred.publisher.tryMin(by: <) },
            .cold("contains", .exactly(1)) { hundred.publisher.contains(50) },
            .cold("tryContains", .exactly(1)) { hundred.publisher.tryContains { $0 == 50 } },
            .cold("allSatisfy", .exactly(1)) { hundred.publisher.allSatisfy { $0 >= 0 } },
            .cold("tryAllSatisfy", .exactly(1)) { hundred.publisher.tryAllSatisfy { $0 >= 0 } },
            .cold("first", .exactly(1)) { hundred.publisher.first() },
            .cold("first(where:)", .exactly(1)) { hundred.publisher.first { $0 > 10 } },
            .cold("tryFirst(where:)", .exactly(1)) { hundred.publisher.tryFirst { $0 > 10 } },
            .cold("last", .exactly(1)) { hundred.publisher.last() },
            .cold("tryLast(where:)", .exactly(1)) { hundred.publisher.tryLast { $0 < 10 } },
            .cold("output(at:)", .exactly(1)) { hundred.publisher.output(at: 5) },
            .cold("output(in:)", .exactly(50)) { hundred.publisher.output(in: 10..<60) },
            .cold("prefix(_:)", .exactly(50)) { hundred.publisher.prefix(50) },
            .cold("prefix(while:)", .exactly(50), pulls: true) { hundred.publisher.prefix { $0 < 50 } },
            .cold("tryPrefix(while:)", .exactly(50), pulls: true) { hundred.publisher.tryPrefix { $0 < 50 } },
            .cold("dropFirst", .exactly(90)) { hundred.publisher.dropFirst(10) },
            .cold("drop(while:)", .exactly(90)) { hundred.publisher.drop { $0 < 10 } },
            .cold("tryDrop(while:)", .exactly(90)) { hundred.publisher.tryDrop { $0 < 10 } },
            .cold("removeDuplicates", .exactly(50), pulls: true) {
                hundred.map { $0 / 2 }.publisher.removeDuplicates()
            },
            .cold("tryRemoveDuplicates", .exactly(50), pulls: true) {
                hundred.map { $0 / 2 }.publisher.tryRemoveDuplicates { $0 == $1 }
            },
            .cold("ignoreOutput", .exactly(0)) { hundred.publisher.ignoreOutput() },
            .cold("merge(with:)", .exactly(200)) {
                hundred.publisher.merge(with: hundred.publisher)
            },
            .cold("merge of 3", .exactly(300)) {
                hundred.publisher.merge(with: hundred.publisher, hundred.publisher)
            },
            .cold("MergeMany", .exactly(400)) {
                Publishers.MergeMany(Array(repeating: hundred.publisher, count: 4))
            },
            .cold("catch", .exactly(101)) {
                Record<Int, TestFailure>(output: hundred, completion: .failure(TestFailure())).catch { _ in Just(-1) }
            },
            .cold("tryCatch", .exactly(101)) {
                Record<Int, TestFailure>(output: hundred, completion: .failure(TestFailure())).tryCatch { _ in Just(-1)
                }
            },
            .cold("retry", .exactly(300)) {
                Record<Int, TestFailure>(output: hundred, completion: .failure(TestFailure())).retry(2)
            },
            .cold("handleEvents", .exactly(100)) { hundred.publisher.handleEvents(receiveOutput: { _ in }) },
            .cold("print", .exactly(100)) { hundred.publisher.print("verifier", to: NullStream()) },
            .cold("breakpoint", .exactly(100)) { hundred.publisher.breakpoint() },
            .cold("assertNoFailure", .exactly(100)) {
                hundred.publisher.setFailureType(to: TestFailure.self).assertNoFailure()
            },
            .cold("encode/decode", .exactly(100)) {
                hundred.map { Pair(value: $0) }.publisher.encode(encoder: JSONEncoder()).decode(
                    type: Pair.self, decoder: JSONDecoder())
            },
            .cold("map ∘ filter ∘ scan chain", .exactly(5_000), pulls: true) {
                many.publisher.map { $0 + 1 }.filter { $0 % 4 == 0 }.scan(0, +)
            },
        ]
    }

    // One line per operator over a driven subject (the verifier sends from several threads and finishes it).
    static var hot: [VerifiedPublisher] {
        [
            .hot("PassthroughSubject") { $0 },
            .hot("CurrentValueSubject") {
                let subject = CurrentValueSubject<Int, Never>(0)
                return VerifierFixture(
                    subject, drive: { subject.send($0) }, finish: { subject.send(completion: .finished) })
            },
            .hot("AnyPublisher over a subject") { $0.eraseToAnyPublisher() },
            .hot("map over a subject") { $0.map { $0 + 1 } },
            .hot("filter over a subject") { $0.filter { _ in true } },
            .hot("tryMap over a subject") { $0.tryMap { $0 + 1 } },
            .hot("compactMap over a subject") { $0.compactMap { $0 } },
            .hot("scan over a subject") { $0.scan(0, +) },
            .hot("removeDuplicates(by:) over a subject") { $0.removeDuplicates { _, _ in false } },
            .hot("handleEvents over a subject") { $0.handleEvents(receiveOutput: { _ in }) },
            .hot("merge of two subjects") {
                let (first, second) = (PassthroughSubject<Int, Never>(), PassthroughSubject<Int, Never>())
                return VerifierFixture(
                    first.merge(with: second), drive: { $0 % 2 == 0 ? first.send($0) : second.send($0) },
                    finish: {
                        first.send(completion: .finished)
                        second.send(completion: .finished)
                    })
            },
            .hot("catch over a subject") { $0.catch { _ in Just(-1).setFailureType(to: TestFailure.self) } },
            .hot("retry over a subject") { $0.retry(1) },
            .hot("dropFirst over a subject") { $0.dropFirst(1) },
            .hot("mapError over a subject") { $0.mapError { $0 as Error } },
        ]
    }
}

/// A TextOutputStream that discards everything (for `print`).
private struct NullStream: TextOutputStream {
    mutating func write(_ string: String) {}
}
