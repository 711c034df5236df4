import Dispatch
import Foundation
import UntangleSync
import XCTest

@testable import Untangle

/// Actor isolation is the compiler's business (issue 29): Untangle is compiled in Swift 5 mode, so a closure formed on
/// the main actor in this Swift 6 test target carries Swift's own isolation check. Correct code sees nothing: closures
/// formed in nonisolated code run on any thread, and closures formed on the main actor run unchanged when the values
/// arrive on the main thread (their checks pass). The firing side stops the process and is tested in child processes
/// by Examples/Swift6Client.
final class IsolationCoverageTests: XCTestCase {
    func testNonisolatedOperatorsRunOnAnotherThreadUnchecked() {
        let subject = PassthroughSubject<Int, TestError>()
        let log = LockedBox<[String: [String]]>([:])
        let cancellables = subscribeEveryFamily(to: subject, log: log)
        let sent = DispatchSemaphore(value: 0)
        Thread {
            sendInputs(into: subject)
            sent.signal()
        }.start()
        sent.wait()
        XCTAssertEqual(log.withLock { $0 }, expectedHistories)
        withExtendedLifetime(cancellables) {}
    }

    func testMainActorOperatorsFedOnTheMainThreadAreSilent() {
        MainActor.assumeIsolated {
            let subject = PassthroughSubject<Int, TestError>()
            let log = LockedBox<[String: [String]]>([:])
            let cancellables = subscribeEveryFamily(to: subject, log: log)
            sendInputs(into: subject)
            XCTAssertEqual(log.withLock { $0 }, expectedHistories)
            withExtendedLifetime(cancellables) {}
        }
    }

    func testMainActorCallSitesWrittenAsInCombineKeepCompilingAndRun() throws {
        try MainActor.assumeIsolated {
            let subject = PassthroughSubject<Int, Never>()
            var seen: [String] = []
            var cancellables = Set<AnyCancellable>()
            subject.compactMap { $0 == 2 ? nil : $0 }.sink { seen.append("compactMap \($0)") }.store(in: &cancellables)
            subject.scan(0) { $0 + $1 }.sink { seen.append("scan \($0)") }.store(in: &cancellables)
            subject.reduce(0) { $0 + $1 }.sink { seen.append("reduce \($0)") }.store(in: &cancellables)
            subject.flatMap(maxPublishers: .max(1)) { Just($0 * 10) }.sink { seen.append("flatMap \($0)") }
                .store(in: &cancellables)
            Publishers.CompactMap(upstream: subject) { $0 > 1 ? $0 : nil }.sink { seen.append("init \($0)") }
                .store(in: &cancellables)
            subject.send(1)
            subject.send(2)
            subject.send(completion: .finished)
            XCTAssertEqual(
                seen,
                [
                    "compactMap 1", "scan 1", "flatMap 10", "scan 3", "flatMap 20", "init 2", "reduce 3",
                ])
            // Combine's eager overloads still win overload resolution: they run the closure at the call.
            let eager: Publishers.Sequence<[Int], Never> = [1, 2, 3].publisher.compactMap { $0 == 2 ? nil : $0 }
            XCTAssertEqual(eager.sequence, [1, 3])
            let just: Result<Int, Error>.Publisher = Just(1).tryMap { $0 + 1 }
            XCTAssertEqual(try just.result.get(), 2)
        }
    }
}

/// The values every test sends, then `.finished`.
private func sendInputs(into subject: PassthroughSubject<Int, TestError>) {
    for value in [1, 2, 2, 3, 4] { subject.send(value) }
    subject.send(completion: .finished)
}

/// What each operator delivers for 1, 2, 2, 3, 4 and `.finished`.
private let expectedHistories: [String: [String]] = [
    "compactMap": ["10", "20", "20", "40", "finished"],
    "tryMap": ["2", "3", "3", "4", "5", "finished"],
    "tryFilter": ["2", "2", "4", "finished"],
    "tryCompactMap": ["3", "4", "finished"],
    "scan": ["1", "3", "5", "8", "12", "finished"],
    "tryScan": ["1", "3", "5", "8", "12", "finished"],
    "removeDuplicates": ["1", "2", "3", "4", "finished"],
    "tryRemoveDuplicates": ["1", "2", "3", "4", "finished"],
    "drop": ["2", "2", "3", "4", "finished"],
    "tryDrop": ["2", "2", "3", "4", "finished"],
    "prefix": ["1", "2", "2", "finished"],
    "tryPrefix": ["1", "2", "2", "finished"],
    "first": ["2", "finished"],
    "tryFirst": ["2", "finished"],
    "last": ["3", "finished"],
    "tryLast": ["3", "finished"],
    "contains": ["true", "finished"],
    "tryContains": ["true", "finished"],
    "allSatisfy": ["true", "finished"],
    "tryAllSatisfy": ["true", "finished"],
    "min": ["1", "finished"],
    "tryMin": ["1", "finished"],
    "max": ["4", "finished"],
    "tryMax": ["4", "finished"],
    "reduce": ["12", "finished"],
    "tryReduce": ["12", "finished"],
    "mapError": ["1", "2", "2", "3", "4", "finished"],
    "flatMap": ["10", "20", "20", "30", "40", "finished"],
    "catch": ["1", "2", "2", "-1", "finished"],
    "tryCatch": ["1", "2", "2", "-1", "finished"],
    "handleEvents": ["output 1", "1", "output 2", "2", "output 2", "2", "output 3", "3", "output 4", "4", "finished"],
    "assign": ["1", "2", "2", "3", "4"],
]

/// Subscribes one chain per operator family to `subject`, each recording its events under the operator's name. The
/// closures are formed in the caller's isolation (this function inherits it through `isolation`), so a main-actor
/// caller's closures carry the compiler's check.
private func subscribeEveryFamily(
    to subject: PassthroughSubject<Int, TestError>, log: LockedBox<[String: [String]]>,
    isolation: isolated (any Actor)? = #isolation
) -> [AnyCancellable] {
    func record<P: Publisher>(_ name: String, _ publisher: P) -> AnyCancellable {
        publisher.sink(
            receiveCompletion: { completion in
                let text: String
                switch completion {
                case .finished: text = "finished"
                case .failure(let error): text = "failure \(error)"
                }
                log.withLock { $0[name, default: []].append(text) }
            },
            receiveValue: { value in log.withLock { $0[name, default: []].append("\(value)") } })
    }
    let throwOnThree = subject.tryMap(
        { value -> Int in
            if value == 3 { throw TestError(3) }
            return value
        })
    let assignTarget = AssignLog(log: log)
    return [
        record("compactMap", subject.compactMap({ $0 == 3 ? nil : $0 * 10 })),
        record("tryMap", subject.tryMap({ $0 + 1 })),
        record("tryFilter", subject.tryFilter({ $0.isMultiple(of: 2) })),
        record("tryCompactMap", subject.tryCompactMap({ $0 > 2 ? $0 : nil })),
        record("scan", subject.scan(0, { $0 + $1 })),
        record("tryScan", subject.tryScan(0, { $0 + $1 })),
        record("removeDuplicates", subject.removeDuplicates(by: { $0 == $1 })),
        record("tryRemoveDuplicates", subject.tryRemoveDuplicates(by: { $0 == $1 })),
        record("drop", subject.drop(while: { $0 < 2 })),
        record("tryDrop", subject.tryDrop(while: { $0 < 2 })),
        record("prefix", subject.prefix(while: { $0 < 3 })),
        record("tryPrefix", subject.tryPrefix(while: { $0 < 3 })),
        record("first", subject.first(where: { $0 > 1 })),
        record("tryFirst", subject.tryFirst(where: { $0 > 1 })),
        record("last", subject.last(where: { $0 < 4 })),
        record("tryLast", subject.tryLast(where: { $0 < 4 })),
        record("contains", subject.contains(where: { $0 == 3 })),
        record("tryContains", subject.tryContains(where: { $0 == 3 })),
        record("allSatisfy", subject.allSatisfy({ $0 > 0 })),
        record("tryAllSatisfy", subject.tryAllSatisfy({ $0 > 0 })),
        record("min", subject.min(by: { $0 < $1 })),
        record("tryMin", subject.tryMin(by: { $0 < $1 })),
        record("max", subject.max(by: { $0 < $1 })),
        record("tryMax", subject.tryMax(by: { $0 < $1 })),
        record("reduce", subject.reduce(0, { $0 + $1 })),
        record("tryReduce", subject.tryReduce(0, { $0 + $1 })),
        record("mapError", subject.mapError({ _ in TestError(2) })),
        record("flatMap", subject.flatMap(maxPublishers: .unlimited, { Just($0 * 10) })),
        record("catch", throwOnThree.catch({ _ in Just(-1) })),
        record("tryCatch", throwOnThree.tryCatch({ _ in Just(-1) })),
        record(
            "handleEvents",
            subject.handleEvents(
                receiveOutput: { value in log.withLock { $0["handleEvents", default: []].append("output \(value)") } })),
        subject.replaceError(with: 0).assign(to: \.value, on: assignTarget),
    ]
}

/// The object `assign(to:on:)` writes to: each assignment is recorded under "assign".
private final class AssignLog: @unchecked Sendable {
    let log: LockedBox<[String: [String]]>
    init(log: LockedBox<[String: [String]]>) { self.log = log }
    var value = 0 {
        didSet { log.withLock { $0["assign", default: []].append("\(value)") } }
    }
}
