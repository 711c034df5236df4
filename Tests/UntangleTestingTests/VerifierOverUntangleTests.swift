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

    func testEveryCombiningPublisherKeepsTheContract() {
        for entry in VerifiedPublishers.combining {
            entry.verify().assertPassed { XCTFail($0) }
        }
    }

    func testEveryScheduledPublisherKeepsTheContract() {
        for entry in VerifiedPublishers.scheduled {
            entry.verify().assertPassed { XCTFail($0) }
        }
    }

    func testEverySpecializedOperatorKeepsTheContract() {
        for entry in VerifiedPublishers.specialized {
            entry.verify().assertPassed { XCTFail($0) }
        }
    }

    func testEveryFoundationAndObservablePublisherKeepsTheContract() {
        for entry in VerifiedPublishers.foundation {
            entry.verify().assertPassed { XCTFail($0) }
        }
    }

    func testEveryMainRunLoopPublisherKeepsTheContract() {
        verifyWhileTheMainRunLoopTurns(VerifiedPublishers.mainRunLoop)
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
        let all =
            VerifiedPublishers.cold + VerifiedPublishers.hot + VerifiedPublishers.combining
            + VerifiedPublishers.scheduled + VerifiedPublishers.specialized + VerifiedPublishers.foundation
        for entry in all where entry.promisesValues {
            let report = entry.verify(rules: [.demandStepwise, .cancelIdempotent, .concurrentRequests])
            XCTAssertEqual(report.results.map(\.outcome), [.passed, .passed, .passed], "\(report)")
        }
    }
}

extension XCTestCase {
    /// Verifies `entries` that deliver on the main thread's run loop or queue (timers on `RunLoop.main`, drivers).
    /// The verifier blocks the thread that calls it, so it runs on a background thread here while XCTest's
    /// `wait(for:timeout:)` keeps the main run loop, and with it the main queue, turning.
    func verifyWhileTheMainRunLoopTurns(_ entries: [VerifiedPublisher]) {
        for entry in entries {
            let verified = expectation(description: entry.name)
            let report = LockedBox<VerificationReport?>(nil)
            nonisolated(unsafe) let entry = entry
            DispatchQueue.global().async {
                let result = entry.verify()
                report.withLock { $0 = result }
                verified.fulfill()
            }
            wait(for: [verified], timeout: 600)
            guard let report = report.withLock({ $0 }) else { return XCTFail("\(entry.name): no report") }
            report.assertPassed { XCTFail($0) }
            // The substantive rules ran (a main queue nobody serviced would time them out, not skip them).
            if entry.promisesValues {
                let stepwise = report.results.first { $0.rule == .demandStepwise }
                XCTAssertEqual(stepwise?.outcome, .passed, "\(report)")
            }
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
            let options = VerifierOptions(
                length: length, completesWithoutExtraDemand: !pulls, concurrencyBudget: VerifiedPublishers.budget)
            let rules = rules.filter { !knownBug.contains($0) }
            return PublisherVerifier(name, options: options, publisher: make).verify(rules: rules)
        }
    }

    /// An operator over a fresh `PassthroughSubject`: the verifier sends values into the subject (from several
    /// threads at once) and finishes it.
    /// `pulls`: the operator adds one value of its own, so its completion after `finish` needs one unit of demand
    /// (see `VerifierOptions.completesWithoutExtraDemand`).
    /// `notApplicable`: rules whose set-up this operator cannot satisfy by design (each use says why); unlike
    /// `knownBug`, nothing is wrong with the publisher.
    static func hot<P: Publisher>(
        _ name: String, pulls: Bool = false, knownBug: [VerifierRule] = [], notApplicable: [VerifierRule] = [],
        _ make: @escaping (PassthroughSubject<Int, TestFailure>) -> P
    ) -> VerifiedPublisher {
        VerifiedPublisher(name: name, promisesValues: true) { rules in
            let rules = rules.filter { !knownBug.contains($0) && !notApplicable.contains($0) }
            let options = VerifierOptions(
                temperature: .hot, completesWithoutExtraDemand: !pulls, concurrentDrive: true,
                concurrencyBudget: VerifiedPublishers.budget)
            return PublisherVerifier(name, options: options) {
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
            let options = VerifierOptions(
                temperature: .hot, concurrentDrive: true, concurrencyBudget: VerifiedPublishers.budget)
            return PublisherVerifier(name, options: options, fixture: fixture).verify(rules: rules)
        }
    }
}

private struct Pair: Codable, Equatable {
    var value: Int
}

private struct Triple {
    var a: Int
    var b: Int
    var c: Int
}

/// An object with a `@Published` property, for `Published.Publisher` and `objectWillChange`.
private final class Model: ObservableObject, @unchecked Sendable {
    @Published var value = 0
}

enum VerifiedPublishers {
    /// One round per concurrency rule: the tables hold a few hundred publishers, and the library's own concurrency
    /// is searched more thoroughly by the concurrency tests of each operator. The planted-bug gallery shows what the
    /// default budget finds.
    static let budget: TimeInterval = 0
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

extension VerifiedPublishers {
    /// A private serial queue for the scheduler-based operators (the verifier waits for asynchronous deliveries).
    static let queue = DispatchQueue(label: "VerifierOverUntangle.serial")
    static let oneMillisecond = DispatchQueue.SchedulerTimeType.Stride.milliseconds(1)

    // Operators that combine several publishers, flatten, concatenate, share or buffer.
    static var combining: [VerifiedPublisher] {
        [
            .cold("combineLatest", .exactly(100)) { Just(1).combineLatest(hundred.publisher) },
            .cold("combineLatest(_:_:) transform", .exactly(100)) { Just(1).combineLatest(hundred.publisher, +) },
            .cold("combineLatest of 3", .exactly(100)) { Just(1).combineLatest(Just(2), hundred.publisher) },
            .cold("combineLatest of 3, transform", .exactly(100)) {
                Just(1).combineLatest(Just(2), hundred.publisher) { $0 + $1 + $2 }
            },
            .cold("combineLatest of 4", .exactly(100)) { Just(1).combineLatest(Just(2), Just(3), hundred.publisher) },
            .cold("combineLatest of 4, transform", .exactly(100)) {
                Just(1).combineLatest(Just(2), Just(3), hundred.publisher) { $0 + $1 + $2 + $3 }
            },
            .cold("zip", .exactly(100)) { hundred.publisher.zip(hundred.publisher) },
            .cold("zip(_:_:) transform", .exactly(100)) { hundred.publisher.zip(hundred.publisher, +) },
            .cold("zip of 3", .exactly(100)) { hundred.publisher.zip(hundred.publisher, hundred.publisher) },
            .cold("zip of 3, transform", .exactly(100)) {
                hundred.publisher.zip(hundred.publisher, hundred.publisher) { $0 + $1 + $2 }
            },
            .cold("zip of 4", .exactly(100)) {
                hundred.publisher.zip(hundred.publisher, hundred.publisher, hundred.publisher)
            },
            .cold("zip of 4, transform", .exactly(100)) {
                hundred.publisher.zip(hundred.publisher, hundred.publisher, hundred.publisher) { $0 + $1 + $2 + $3 }
            },
            .cold("merge of 4", .exactly(400)) {
                hundred.publisher.merge(with: hundred.publisher, hundred.publisher, hundred.publisher)
            },
            .cold("merge of 5", .exactly(500)) {
                hundred.publisher.merge(
                    with: hundred.publisher, hundred.publisher, hundred.publisher, hundred.publisher)
            },
            .cold("Merge6", .exactly(600)) {
                let p = hundred.publisher
                return Publishers.Merge6(p, p, p, p, p, p)
            },
            .cold("Merge7", .exactly(700)) {
                let p = hundred.publisher
                return Publishers.Merge7(p, p, p, p, p, p, p)
            },
            .cold("Merge8", .exactly(800)) {
                let p = hundred.publisher
                return Publishers.Merge8(p, p, p, p, p, p, p, p)
            },
            .cold("MergeMany.merge(with:)", .exactly(300)) {
                Publishers.MergeMany(hundred.publisher, hundred.publisher).merge(with: hundred.publisher)
            },
            .cold("append(_:) values (Concatenate)", .exactly(103)) { hundred.publisher.map { $0 }.append(1, 2, 3) },
            .cold("append(_:) publisher (Concatenate)", .exactly(200)) {
                hundred.publisher.map { $0 }.append(hundred.publisher)
            },
            .cold("prepend(_:) values (Concatenate)", .exactly(103)) { hundred.publisher.map { $0 }.prepend(1, 2, 3) },
            .cold("prepend(_:) publisher (Concatenate)", .exactly(200)) {
                hundred.publisher.map { $0 }.prepend(hundred.publisher)
            },
            .cold("prefix(untilOutputFrom:) (never)", .exactly(100)) {
                hundred.publisher.prefix(untilOutputFrom: Empty<Int, Never>(completeImmediately: false))
            },
            .cold("prefix(untilOutputFrom:) (at once)", .exactly(0)) {
                hundred.publisher.prefix(untilOutputFrom: Just(1))
            },
            .cold("drop(untilOutputFrom:)", .exactly(100)) { hundred.publisher.drop(untilOutputFrom: Just(1)) },
            .cold("flatMap", .exactly(200)) { hundred.publisher.flatMap { [$0, $0].publisher } },
            .cold("flatMap(maxPublishers: 1)", .exactly(200)) {
                hundred.publisher.flatMap(maxPublishers: .max(1)) { [$0, $0].publisher }
            },
            .cold("flatMap (inner may fail)", .exactly(100)) {
                hundred.publisher.flatMap { Just($0).setFailureType(to: TestFailure.self) }
            },
            .cold("flatMap (upstream may fail)", .exactly(100)) {
                Record<Int, TestFailure>(output: hundred, completion: .finished).flatMap { Just($0) }
            },
            .cold("flatMap (both may fail)", .exactly(100)) {
                Record<Int, TestFailure>(output: hundred, completion: .finished).flatMap {
                    Just($0).setFailureType(to: TestFailure.self)
                }
            },
            // The upstream failure ends the result at once: inner values still waiting for demand are dropped.
            .cold("flatMap (upstream fails)", .unbounded) {
                Record<Int, TestFailure>(output: hundred, completion: .failure(TestFailure())).flatMap { Just($0) }
            },
            // The outer sequence replaces each inner at once, so only the last inner is sure to deliver.
            .cold("switchToLatest", .atLeast(1)) { hundred.publisher.map { Just($0) }.switchToLatest() },
            .cold("switchToLatest (inner may fail)", .atLeast(1)) {
                hundred.publisher.map { Just($0).setFailureType(to: TestFailure.self) }.switchToLatest()
            },
            .cold("switchToLatest (outer may fail)", .atLeast(1)) {
                hundred.publisher.setFailureType(to: TestFailure.self).map { Just($0) }.switchToLatest()
            },
            // As Apple's, buffer's `.finished` waits for demand once the queue is drained (`pulls`).
            .cold("buffer(keepFull, dropNewest)", .exactly(100), pulls: true) {
                hundred.publisher.buffer(size: 10, prefetch: .keepFull, whenFull: .dropNewest)
            },
            // `.byRequest` asks for `.unlimited` before its subscriber is subscribed (Apple's order): the whole
            // sequence arrives at once and the buffer keeps the last 10, then finishes once they are delivered and
            // more is requested.
            .cold("buffer(byRequest, dropOldest)", .exactly(10), pulls: true) {
                hundred.publisher.buffer(size: 10, prefetch: .byRequest, whenFull: .dropOldest)
            },
            .cold("buffer(keepFull, customError)", .exactly(100), pulls: true) {
                hundred.publisher.setFailureType(to: TestFailure.self).buffer(
                    size: 10, prefetch: .keepFull, whenFull: .customError { TestFailure() })
            },
            .cold("Deferred(Future)", .exactly(1)) { Deferred { Future<Int, Never> { $0(.success(1)) } } },
            .cold("Future (fulfilled on another thread)", .exactly(1)) {
                Future<Int, Never> { promise in
                    nonisolated(unsafe) let promise = promise
                    queue.async { promise(.success(1)) }
                }
            },
            .cold("last(where:)", .exactly(1)) { hundred.publisher.last { $0 < 10 } },
            .cold("min(by:)", .exactly(1)) { hundred.publisher.min(by: <) },
            .cold("max(by:)", .exactly(1)) { hundred.publisher.max(by: <) },
            .cold("tryMax(by:)", .exactly(1)) { hundred.publisher.tryMax(by: <) },
            .cold("contains(where:)", .exactly(1)) { hundred.publisher.contains { $0 == 50 } },
            .cold("breakpointOnError", .exactly(100)) { hundred.publisher.breakpointOnError() },
            .cold("map(_:_:) key paths", .exactly(100)) {
                hundred.map { Triple(a: $0, b: $0, c: $0) }.publisher.map(\.a, \.b)
            },
            .cold("map(_:_:_:) key paths", .exactly(100)) {
                hundred.map { Triple(a: $0, b: $0, c: $0) }.publisher.map(\.a, \.b, \.c)
            },
            .cold("decode", .exactly(100)) {
                hundred.map { try! JSONEncoder().encode(Pair(value: $0)) }.publisher.decode(
                    type: Pair.self, decoder: JSONDecoder())
            },
            .hot("combineLatest of two subjects") {
                let (first, second) = (PassthroughSubject<Int, Never>(), PassthroughSubject<Int, Never>())
                return VerifierFixture(
                    first.combineLatest(second),
                    drive: {
                        first.send($0)
                        second.send($0)
                    },
                    finish: {
                        first.send(completion: .finished)
                        second.send(completion: .finished)
                    })
            },
            .hot("zip of two subjects") {
                let (first, second) = (PassthroughSubject<Int, Never>(), PassthroughSubject<Int, Never>())
                return VerifierFixture(
                    first.zip(second),
                    drive: {
                        first.send($0)
                        second.send($0)
                    },
                    finish: {
                        first.send(completion: .finished)
                        second.send(completion: .finished)
                    })
            },
            .hot("append over a subject", pulls: true) { $0.append(Just(-1).setFailureType(to: TestFailure.self)) },
            .hot("prepend over a subject", pulls: true) { $0.prepend(-1) },
            .hot("prefix(untilOutputFrom:) over a subject") {
                $0.prefix(untilOutputFrom: PassthroughSubject<Int, Never>())
            },
            .hot("drop(untilOutputFrom:) over a subject") {
                $0.drop(untilOutputFrom: Just(1).setFailureType(to: TestFailure.self))
            },
            .hot("flatMap over a subject") { $0.flatMap { Just($0) } },
            .hot("flatMap(maxPublishers: 1) over a subject") { $0.flatMap(maxPublishers: .max(1)) { Just($0) } },
            .hot("switchToLatest over a subject") { $0.map { Just($0) }.switchToLatest() },
            .hot("share over a subject") { $0.share() },
            .hot("multicast(subject:).autoconnect over a subject") {
                $0.multicast(subject: PassthroughSubject()).autoconnect()
            },
            .hot("multicast(_:).autoconnect over a subject") { $0.multicast { PassthroughSubject() }.autoconnect() },
            .hot("makeConnectable().autoconnect over a subject") {
                $0.replaceError(with: -1).makeConnectable().autoconnect()
            },
            .hot("multicast, connected") {
                let subject = PassthroughSubject<Int, Never>()
                let multicast = subject.multicast(subject: PassthroughSubject())
                let connection = multicast.connect()
                return VerifierFixture(
                    multicast, drive: { subject.send($0) },
                    finish: {
                        subject.send(completion: .finished)
                        withExtendedLifetime(connection) {}
                    })
            },
            // As Apple's, buffer's `.finished` waits for one unit of demand when nothing was requested (`pulls`).
            .hot("buffer(byRequest, dropOldest) over a subject", pulls: true) {
                $0.buffer(size: 5, prefetch: .byRequest, whenFull: .dropOldest)
            },
            .hot("buffer(keepFull, dropNewest) over a subject", pulls: true) {
                $0.buffer(size: 5, prefetch: .keepFull, whenFull: .dropNewest)
            },
        ]
    }

    // Operators that take a scheduler: a private serial DispatchQueue (the verifier waits for asynchronous
    // deliveries with its own timeouts) or ImmediateScheduler.
    static var scheduled: [VerifiedPublisher] {
        [
            .cold("receive(on: DispatchQueue)", .exactly(100)) { hundred.publisher.receive(on: queue) },
            .cold("receive(on: ImmediateScheduler)", .exactly(100)) {
                hundred.publisher.receive(on: ImmediateScheduler.shared)
            },
            .cold("subscribe(on: DispatchQueue)", .exactly(100)) { hundred.publisher.subscribe(on: queue) },
            .cold("subscribe(on: ImmediateScheduler)", .exactly(100)) {
                hundred.publisher.subscribe(on: ImmediateScheduler.shared)
            },
            .cold("delay (DispatchQueue)", .exactly(100)) {
                hundred.publisher.delay(for: oneMillisecond, scheduler: queue)
            },
            .cold("delay (ImmediateScheduler)", .exactly(100)) {
                hundred.publisher.delay(for: .zero, scheduler: ImmediateScheduler.shared)
            },
            .cold("timeout (not reached)", .exactly(100)) { hundred.publisher.timeout(.seconds(60), scheduler: queue) },
            .cold("timeout (reached)", .exactly(0)) {
                Empty<Int, TestFailure>(completeImmediately: false).timeout(oneMillisecond, scheduler: queue)
            },
            .cold("timeout (reached, customError)", .exactly(0)) {
                Empty<Int, TestFailure>(completeImmediately: false).timeout(
                    oneMillisecond, scheduler: queue, customError: { TestFailure() })
            },
            .cold("measureInterval", .exactly(100)) { hundred.publisher.measureInterval(using: queue) },
            .cold("collect(byTimeOrCount)", .exactly(10)) {
                hundred.publisher.collect(.byTimeOrCount(queue, .seconds(60), 10))
            },
            // How many groups a synchronous sequence makes depends on the clock: at least the final one.
            .cold("collect(byTime)", .atLeast(1)) { hundred.publisher.collect(.byTime(queue, oneMillisecond)) },
            // Debounce discards the value still counting down when the upstream completes, and both drop values that
            // find no demand: over a synchronous sequence they promise no value.
            .cold("debounce (over a sequence)", .unbounded) {
                hundred.publisher.debounce(for: oneMillisecond, scheduler: queue)
            },
            .cold("throttle (over a sequence)", .unbounded) {
                hundred.publisher.throttle(for: oneMillisecond, scheduler: queue, latest: true)
            },
            .hot("receive(on:) over a subject") { $0.receive(on: queue) },
            .hot("subscribe(on:) over a subject") { $0.subscribe(on: queue) },
            .hot("delay over a subject") { $0.delay(for: oneMillisecond, scheduler: queue) },
            // The cancel-racing rule stages its race by driving values back to back and waiting for 5 deliveries;
            // debounce, by design, emits only after a quiet period, so on a busy machine too few values come through
            // for the rule to start (it failed CI that way once). The other cancel rules still run.
            .hot("debounce over a subject", notApplicable: [.cancelRacingDelivery]) {
                $0.debounce(for: oneMillisecond, scheduler: queue)
            },
            .hot("throttle(latest: true) over a subject") {
                $0.throttle(for: oneMillisecond, scheduler: queue, latest: true)
            },
            .hot("throttle(latest: false) over a subject") {
                $0.throttle(for: oneMillisecond, scheduler: queue, latest: false)
            },
            .hot("timeout over a subject") { $0.timeout(.seconds(60), scheduler: queue) },
            .hot("measureInterval over a subject") { $0.measureInterval(using: queue) },
            .hot("collect(byTime) over a subject") { $0.collect(.byTime(queue, oneMillisecond)) },
            // As Apple's since iOS 13.3: demand the subscriber returns from a group the timer cut asks the subject
            // for nothing, so a subscriber that only returns `.max(1)` starves once the timer cuts the groups.
            .hot("collect(byTimeOrCount) over a subject", notApplicable: [.demandReturnedFromReceive]) {
                $0.collect(.byTimeOrCount(queue, oneMillisecond, 2))
            },
        ]
    }

    // The specializations of Just, Optional.Publisher, Result.Publisher and Publishers.Sequence that return
    // publishers of their own kind.
    static var specialized: [VerifiedPublisher] {
        [
            .cold("Just.map", .exactly(1)) { Just(1).map { $0 + 1 } },
            .cold("Just.append", .exactly(3)) { Just(1).append(2, 3) },
            .cold("Just.append(sequence)", .exactly(3)) { Just(1).append([2, 3]) },
            .cold("Just.prepend", .exactly(3)) { Just(1).prepend(2, 3) },
            .cold("Just.prepend(sequence)", .exactly(3)) { Just(1).prepend([2, 3]) },
            .cold("Just.collect", .exactly(1)) { Just(1).collect() },
            .cold("Just.count", .exactly(1)) { Just(1).count() },
            .cold("Just.contains", .exactly(1)) { Just(1).contains(1) },
            .cold("Just.contains(where:)", .exactly(1)) { Just(1).contains { $0 > 0 } },
            .cold("Just.allSatisfy", .exactly(1)) { Just(1).allSatisfy { $0 > 0 } },
            .cold("Just.first", .exactly(1)) { Just(1).first() },
            .cold("Just.last", .exactly(1)) { Just(1).last() },
            .cold("Just.min", .exactly(1)) { Just(1).min() },
            .cold("Just.max(by:)", .exactly(1)) { Just(1).max(by: <) },
            .cold("Just.removeDuplicates", .exactly(1)) { Just(1).removeDuplicates() },
            .cold("Just.replaceEmpty", .exactly(1)) { Just(1).replaceEmpty(with: 2) },
            .cold("Just.replaceError", .exactly(1)) { Just(1).replaceError(with: 2) },
            .cold("Just.retry", .exactly(1)) { Just(1).retry(2) },
            .cold("Just.ignoreOutput", .exactly(0)) { Just(1).ignoreOutput() },
            .cold("Optional.Publisher.map", .exactly(1)) { Optional(1).publisher.map { $0 + 1 } },
            .cold("Optional.Publisher.filter (none)", .exactly(0)) { Optional(1).publisher.filter { $0 > 1 } },
            .cold("Optional.Publisher.compactMap", .exactly(1)) { Optional(1).publisher.compactMap { $0 } },
            .cold("Optional.Publisher.count", .exactly(1)) { Optional(1).publisher.count() },
            .cold("Optional.Publisher.collect", .exactly(1)) { Optional(1).publisher.collect() },
            .cold("Optional.Publisher.scan", .exactly(1)) { Optional(1).publisher.scan(0, +) },
            .cold("Optional.Publisher.reduce", .exactly(1)) { Optional(1).publisher.reduce(0, +) },
            .cold("Optional.Publisher.dropFirst", .exactly(0)) { Optional(1).publisher.dropFirst() },
            .cold("Optional.Publisher.prefix", .exactly(1)) { Optional(1).publisher.prefix(1) },
            .cold("Optional.Publisher.replaceEmpty", .exactly(1)) {
                Optional<Int>.none.publisher.replaceEmpty(with: 1)
            },
            .cold("Optional.Publisher.ignoreOutput", .exactly(0)) { Optional(1).publisher.ignoreOutput() },
            .cold("Result.Publisher.map", .exactly(1)) { Result<Int, TestFailure>.success(1).publisher.map { $0 + 1 } },
            .cold("Result.Publisher.tryMap", .exactly(1)) {
                Result<Int, TestFailure>.success(1).publisher.tryMap { $0 + 1 }
            },
            .cold("Result.Publisher.mapError", .exactly(0)) {
                Result<Int, TestFailure>.failure(TestFailure()).publisher.mapError { $0 as Error }
            },
            .cold("Result.Publisher.replaceError", .exactly(1)) {
                Result<Int, TestFailure>.failure(TestFailure()).publisher.replaceError(with: 1)
            },
            .cold("Result.Publisher.scan", .exactly(1)) { Result<Int, TestFailure>.success(1).publisher.scan(0, +) },
            .cold("Result.Publisher.tryReduce", .exactly(1)) {
                Result<Int, TestFailure>.success(1).publisher.tryReduce(0, +)
            },
            .cold("Result.Publisher.count", .exactly(1)) { Result<Int, TestFailure>.success(1).publisher.count() },
            .cold("Result.Publisher.ignoreOutput", .exactly(0)) {
                Result<Int, TestFailure>.success(1).publisher.ignoreOutput()
            },
            .cold("Sequence.map", .exactly(100)) { hundred.publisher.map { $0 + 1 } },
            .cold("Sequence.filter", .exactly(50)) { hundred.publisher.filter { $0 % 2 == 0 } },
            .cold("Sequence.compactMap", .exactly(50)) { hundred.publisher.compactMap { $0 % 2 == 0 ? $0 : nil } },
            .cold("Sequence.append", .exactly(102)) { hundred.publisher.append(1, 2) },
            .cold("Sequence.append(publisher)", .exactly(200)) { hundred.publisher.append(hundred.publisher) },
            .cold("Sequence.prepend", .exactly(102)) { hundred.publisher.prepend(1, 2) },
            .cold("Sequence.prepend(sequence)", .exactly(200)) { hundred.publisher.prepend(hundred) },
            .cold("Sequence.dropFirst", .exactly(90)) { hundred.publisher.dropFirst(10) },
            .cold("Sequence.prefix", .exactly(10)) { hundred.publisher.prefix(10) },
            .cold("Sequence.output(in:)", .exactly(10)) { hundred.publisher.output(in: 10..<20) },
            .cold("Sequence.removeDuplicates", .exactly(50)) { hundred.map { $0 / 2 }.publisher.removeDuplicates() },
            .cold("Sequence.replaceNil", .exactly(100)) {
                hundred.map { $0 % 2 == 0 ? $0 : nil }.publisher.replaceNil(with: -1)
            },
            .cold("Sequence.count", .exactly(1)) { hundred.publisher.count() },
            .cold("Sequence.setFailureType", .exactly(100)) { hundred.publisher.setFailureType(to: TestFailure.self) },
            .cold("Sequence.ignoreOutput", .exactly(0)) { hundred.publisher.ignoreOutput() },
        ]
    }

    // Publishers that fire on the main run loop (see testEveryMainRunLoopPublisherKeepsTheContract). A timer
    // drops ticks that find no demand, so it promises only that ticks keep coming.
    static var mainRunLoop: [VerifiedPublisher] {
        [
            .cold("Timer.publish(...).autoconnect() on RunLoop.main", .atLeast(20)) {
                Timer.publish(every: 0.001, on: .main, in: .default).autoconnect()
            }
        ]
    }

    // Foundation and observation publishers that can be driven locally. Not verified:
    // URLSession.DataTaskPublisher, which needs an HTTP server (UntangleTests has a loopback one; this target does
    // not) and whose single response makes most rules not applicable.
    static var foundation: [VerifiedPublisher] {
        [
            .hot("NotificationCenter.Publisher (private center)") {
                let center = NotificationCenter()
                let name = Notification.Name("VerifierOverUntangle.ping")
                return VerifierFixture(
                    center.publisher(for: name), drive: { _ in center.post(name: name, object: nil) })
            },
            .hot("Published.Publisher") {
                let model = Model()
                return VerifierFixture(model.$value, drive: { model.value = $0 })
            },
            .hot("ObservableObjectPublisher (objectWillChange)") {
                let model = Model()
                return VerifierFixture(model.objectWillChange, drive: { model.value = $0 })
            },
            .hot("ObservableObjectPublisher (send)") {
                let publisher = ObservableObjectPublisher()
                return VerifierFixture(publisher, drive: { _ in publisher.send() })
            },
        ]
    }
}
