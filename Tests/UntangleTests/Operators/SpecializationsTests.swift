import Foundation
import Untangle
import XCTest

// The same-operator specializations on Just, Optional.Publisher, Result.Publisher and Publishers.Sequence. Each test
// checks the static type the compiler picks WITHOUT a contextual type (what a user gets from `let p = ...`), then the
// events a subscriber receives. Events are compared through their descriptions so that `any Error` failures compare
// too: "subscription(<name>)", "value(<v>)", "finished", "failure(<error>)".

/// Fails unless the static type of `value` is exactly `expected`.
private func assertType<T, Expected>(
    _ value: T, _ expected: Expected.Type, file: StaticString = #filePath, line: UInt = #line
) {
    XCTAssertTrue(
        T.self == Expected.self, "static type is \(T.self), expected \(Expected.self)", file: file, line: line)
}

/// The events a fresh subscriber with unlimited demand receives.
private func events<P: Publisher>(_ publisher: P) -> [String] {
    let recorder = Recorder<P.Output, P.Failure>()
    publisher.subscribe(recorder)
    return recorder.events.map(\.description)
}

private let justOne = ["subscription(Just)", "value(1)", "finished"]
private let finishedEmpty = ["subscription(Empty)", "finished"]

private struct DescribedError: Error, Equatable {
    let text: String
}

/// A closure returning `output` whatever its input (generic, so it also serves as a `(Never) -> E`).
private func ignoringInput<Input, T>(_ output: T) -> (Input) -> T { { _ in output } }

private func thrower<T>(_: T) throws -> Bool { throw TestError(3) }

// MARK: - Just

final class JustSpecializationsTests: XCTestCase {
    func testClosuresRunOnceWhenTheOperatorIsCalledNotPerSubscriber() {
        var calls = 0
        let mapped = Just(1).map { value -> Int in
            calls += 1
            return value * 2
        }
        XCTAssertEqual(calls, 1)
        XCTAssertEqual(events(mapped), ["subscription(Just)", "value(2)", "finished"])
        XCTAssertEqual(events(mapped), ["subscription(Just)", "value(2)", "finished"])
        XCTAssertEqual(calls, 1)
    }

    func testMinAndMax() {
        assertType(Just(1).min(), Just<Int>.self)
        assertType(Just(1).max(), Just<Int>.self)
        assertType(Just(1).min(by: >), Just<Int>.self)
        assertType(Just(1).max(by: >), Just<Int>.self)
        XCTAssertEqual(events(Just(1).min()), justOne)
        XCTAssertEqual(events(Just(1).max()), justOne)
        XCTAssertEqual(
            events(
                Just(1).min { _, _ in
                    XCTFail("never called"); return true
                }), justOne)
        XCTAssertEqual(
            events(
                Just(1).max { _, _ in
                    XCTFail("never called"); return true
                }), justOne)
    }

    func testContainsValue() {
        let found = Just(1).contains(1)
        assertType(found, Just<Bool>.self)
        XCTAssertEqual(events(found), ["subscription(Just)", "value(true)", "finished"])
        XCTAssertEqual(events(Just(1).contains(2)), ["subscription(Just)", "value(false)", "finished"])
    }

    func testRemoveDuplicates() {
        assertType(Just(1).removeDuplicates(), Just<Int>.self)
        assertType(Just(1).removeDuplicates(by: ==), Just<Int>.self)
        XCTAssertEqual(events(Just(1).removeDuplicates()), justOne)
        XCTAssertEqual(events(Just(1).removeDuplicates(by: ==)), justOne)
    }

    func testTryRemoveDuplicates() {
        let unique = Just(1).tryRemoveDuplicates { _, _ in throw TestError(3) }
        assertType(unique, Result<Int, Error>.Publisher.self)
        XCTAssertEqual(
            events(unique), ["subscription(Empty)", "failure(TestError(3))"], "Combine compares the value with itself")
        var compared: [[Int]] = []
        let kept = Just(1).tryRemoveDuplicates {
            compared.append([$0, $1]); return true
        }
        XCTAssertEqual(events(kept), ["subscription(Once)", "value(1)", "finished"])
        XCTAssertEqual(compared, [[1, 1]])
    }

    func testAllSatisfyAndTryAllSatisfy() {
        assertType(Just(1).allSatisfy { $0 > 0 }, Just<Bool>.self)
        XCTAssertEqual(events(Just(1).allSatisfy { $0 > 0 }), ["subscription(Just)", "value(true)", "finished"])
        let tried = Just(1).tryAllSatisfy { $0 > 5 }
        assertType(tried, Result<Bool, Error>.Publisher.self)
        XCTAssertEqual(events(tried), ["subscription(Once)", "value(false)", "finished"])
        XCTAssertEqual(events(Just(1).tryAllSatisfy(thrower)), ["subscription(Empty)", "failure(TestError(3))"])
    }

    func testContainsWhereAndTryContains() {
        assertType(Just(1).contains { $0 == 1 }, Just<Bool>.self)
        XCTAssertEqual(events(Just(1).contains { $0 == 1 }), ["subscription(Just)", "value(true)", "finished"])
        let tried = Just(1).tryContains { $0 == 2 }
        assertType(tried, Result<Bool, Error>.Publisher.self)
        XCTAssertEqual(events(tried), ["subscription(Once)", "value(false)", "finished"])
        XCTAssertEqual(events(Just(1).tryContains(where: thrower)), ["subscription(Empty)", "failure(TestError(3))"])
    }

    func testCollectAndCount() {
        assertType(Just(1).collect(), Just<[Int]>.self)
        XCTAssertEqual(events(Just(1).collect()), ["subscription(Just)", "value([1])", "finished"])
        assertType(Just("x").count(), Just<Int>.self)
        XCTAssertEqual(events(Just("x").count()), justOne)
    }

    func testDropFirstAndDropWhile() {
        assertType(Just(1).dropFirst(), Optional<Int>.Publisher.self)
        XCTAssertEqual(events(Just(1).dropFirst()), finishedEmptyOptional)
        XCTAssertEqual(events(Just(1).dropFirst(0)), optionalOne)
        assertType(Just(1).drop { $0 < 0 }, Optional<Int>.Publisher.self)
        XCTAssertEqual(events(Just(1).drop { $0 < 0 }), optionalOne)
        XCTAssertEqual(events(Just(1).drop { $0 > 0 }), finishedEmptyOptional)
    }

    func testFirstAndLast() {
        assertType(Just(1).first(), Just<Int>.self)
        assertType(Just(1).last(), Just<Int>.self)
        XCTAssertEqual(events(Just(1).first()), justOne)
        XCTAssertEqual(events(Just(1).last()), justOne)
        assertType(Just(1).first { $0 > 0 }, Optional<Int>.Publisher.self)
        assertType(Just(1).last { $0 > 0 }, Optional<Int>.Publisher.self)
        XCTAssertEqual(events(Just(1).first { $0 > 0 }), optionalOne)
        XCTAssertEqual(events(Just(1).last { $0 > 5 }), finishedEmptyOptional)
    }

    func testFilterAndCompactMap() {
        let kept = Just(1).filter { $0 > 0 }
        assertType(kept, Optional<Int>.Publisher.self)
        XCTAssertEqual(events(kept), optionalOne)
        XCTAssertEqual(events(Just(1).filter { $0 > 5 }), finishedEmptyOptional)
        let parsed = Just("12").compactMap { Int($0) }
        assertType(parsed, Optional<Int>.Publisher.self)
        XCTAssertEqual(events(parsed), ["subscription(Optional)", "value(12)", "finished"])
        XCTAssertEqual(events(Just("x").compactMap { Int($0) }), finishedEmptyOptional)
    }

    func testIgnoreOutput() {
        assertType(Just(1).ignoreOutput(), Empty<Int, Never>.self)
        XCTAssertEqual(events(Just(1).ignoreOutput()), finishedEmpty)
    }

    func testMapAndTryMap() {
        let label = Just(1).map { "#\($0)" }
        assertType(label, Just<String>.self)
        XCTAssertEqual(events(label), ["subscription(Just)", "value(#1)", "finished"])
        let tried = Just(1).tryMap { $0 * 3 }
        assertType(tried, Result<Int, Error>.Publisher.self)
        XCTAssertEqual(events(tried), ["subscription(Once)", "value(3)", "finished"])
        let failed = Just(1).tryMap { _ -> Int in throw TestError(3) }
        XCTAssertEqual(events(failed), ["subscription(Empty)", "failure(TestError(3))"])
    }

    func testOutputAtAndIn() {
        assertType(Just(1).output(at: 0), Optional<Int>.Publisher.self)
        XCTAssertEqual(events(Just(1).output(at: 0)), optionalOne)
        XCTAssertEqual(events(Just(1).output(at: 1)), finishedEmptyOptional)
        assertType(Just(1).output(in: 0..<2), Optional<Int>.Publisher.self)
        XCTAssertEqual(events(Just(1).output(in: 0..<2)), optionalOne)
        XCTAssertEqual(events(Just(1).output(in: ...0)), optionalOne)
        XCTAssertEqual(events(Just(1).output(in: 0...)), optionalOne)
        XCTAssertEqual(events(Just(1).output(in: 1..<3)), finishedEmptyOptional)
        XCTAssertEqual(events(Just(1).output(in: 0..<0)), optionalOne, "as Combine: only the lower bound counts")
        XCTAssertEqual(events(Just(1).output(in: -2..<3)), finishedEmptyOptional, "a negative lower bound: nothing")
    }

    func testPrefixAndPrefixWhile() {
        assertType(Just(1).prefix(1), Optional<Int>.Publisher.self)
        XCTAssertEqual(events(Just(1).prefix(1)), optionalOne)
        XCTAssertEqual(events(Just(1).prefix(0)), finishedEmptyOptional)
        assertType(Just(1).prefix { $0 > 0 }, Optional<Int>.Publisher.self)
        XCTAssertEqual(events(Just(1).prefix { $0 > 0 }), optionalOne)
        XCTAssertEqual(events(Just(1).prefix { $0 > 5 }), finishedEmptyOptional)
    }

    func testSetFailureTypeAndMapError() {
        let typed = Just(1).setFailureType(to: TestError.self)
        assertType(typed, Result<Int, TestError>.Publisher.self)
        XCTAssertEqual(events(typed), ["subscription(Once)", "value(1)", "finished"])
        let mapped = Just(1).mapError(ignoringInput(TestError(0)))
        assertType(mapped, Result<Int, TestError>.Publisher.self)
        XCTAssertEqual(events(mapped), ["subscription(Once)", "value(1)", "finished"])
    }

    func testReplaceErrorReplaceEmptyAndRetry() {
        assertType(Just(1).replaceError(with: 0), Just<Int>.self)
        assertType(Just(1).replaceEmpty(with: 0), Just<Int>.self)
        assertType(Just(1).retry(3), Just<Int>.self)
        XCTAssertEqual(events(Just(1).replaceError(with: 0)), justOne)
        XCTAssertEqual(events(Just(1).replaceEmpty(with: 0)), justOne)
        XCTAssertEqual(events(Just(1).retry(3)), justOne)
    }

    func testReduceAndTryReduce() {
        let total = Just(4).reduce(10, +)
        assertType(total, Result<Int, Never>.Publisher.self)
        XCTAssertEqual(events(total), ["subscription(Once)", "value(14)", "finished"])
        let tried = Just(4).tryReduce(10, +)
        assertType(tried, Result<Int, Error>.Publisher.self)
        XCTAssertEqual(events(tried), ["subscription(Once)", "value(14)", "finished"])
        let failed = Just(4).tryReduce(10) { _, _ in throw TestError(3) }
        XCTAssertEqual(events(failed), ["subscription(Empty)", "failure(TestError(3))"])
    }

    func testScanAndTryScan() {
        let running = Just(4).scan(10, +)
        assertType(running, Result<Int, Never>.Publisher.self)
        XCTAssertEqual(events(running), ["subscription(Once)", "value(14)", "finished"])
        let tried = Just(4).tryScan(10, +)
        assertType(tried, Result<Int, Error>.Publisher.self)
        XCTAssertEqual(events(tried), ["subscription(Once)", "value(14)", "finished"])
        let failed = Just(4).tryScan(10) { _, _ in throw TestError(3) }
        XCTAssertEqual(events(failed), ["subscription(Empty)", "failure(TestError(3))"])
    }

    func testPrependAndAppend() {
        let before = Just(3).prepend(1, 2)
        assertType(before, Publishers.Sequence<[Int], Never>.self)
        XCTAssertEqual(before.sequence, [1, 2, 3])
        XCTAssertEqual(events(before), ["subscription([1, 2, 3])", "value(1)", "value(2)", "value(3)", "finished"])
        XCTAssertEqual(Just(3).prepend(1...2).sequence, [1, 2, 3])
        let after = Just(1).append(2, 3)
        assertType(after, Publishers.Sequence<[Int], Never>.self)
        XCTAssertEqual(after.sequence, [1, 2, 3])
        XCTAssertEqual(events(after), ["subscription([1, 2, 3])", "value(1)", "value(2)", "value(3)", "finished"])
        assertType(Just(1).append([2, 3]), Publishers.Sequence<[Int], Never>.self)
        XCTAssertEqual(Just(1).append([2, 3]).sequence, [1, 2, 3])
    }
}

private let optionalOne = ["subscription(Optional)", "value(1)", "finished"]
// A nil `Optional.Publisher` finishes at subscription through the empty subscription, without demand.
private let finishedEmptyOptional = ["subscription(Empty)", "finished"]

// MARK: - Optional.Publisher

final class OptionalPublisherSpecializationsTests: XCTestCase {
    private let one: Int? = 1
    private let none: Int? = nil

    func testClosuresNeverRunForNil() {
        let mapped = none.publisher.map { _ -> Int in
            XCTFail("never called")
            return 0
        }
        XCTAssertEqual(events(mapped), finishedEmptyOptional)
    }

    func testContainsValueAndRemoveDuplicates() {
        assertType(one.publisher.contains(1), Optional<Bool>.Publisher.self)
        XCTAssertEqual(events(one.publisher.contains(1)), ["subscription(Optional)", "value(true)", "finished"])
        XCTAssertEqual(events(none.publisher.contains(1)), finishedEmptyOptional)
        assertType(one.publisher.removeDuplicates(), Optional<Int>.Publisher.self)
        assertType(one.publisher.removeDuplicates(by: ==), Optional<Int>.Publisher.self)
        XCTAssertEqual(events(one.publisher.removeDuplicates()), optionalOne)
        XCTAssertEqual(events(one.publisher.removeDuplicates(by: ==)), optionalOne)
    }

    func testMinAndMax() {
        assertType(one.publisher.min(), Optional<Int>.Publisher.self)
        assertType(one.publisher.max(), Optional<Int>.Publisher.self)
        assertType(one.publisher.min(by: <), Optional<Int>.Publisher.self)
        assertType(one.publisher.max(by: <), Optional<Int>.Publisher.self)
        XCTAssertEqual(events(one.publisher.min()), optionalOne)
        XCTAssertEqual(events(one.publisher.max(by: <)), optionalOne)
        XCTAssertEqual(events(none.publisher.max()), finishedEmptyOptional)
    }

    func testAllSatisfyAndContainsWhere() {
        assertType(one.publisher.allSatisfy { $0 > 0 }, Optional<Bool>.Publisher.self)
        XCTAssertEqual(
            events(one.publisher.allSatisfy { $0 > 0 }), ["subscription(Optional)", "value(true)", "finished"])
        XCTAssertEqual(events(none.publisher.allSatisfy { $0 > 0 }), finishedEmptyOptional, "nil stays nil")
        assertType(one.publisher.contains { $0 > 5 }, Optional<Bool>.Publisher.self)
        XCTAssertEqual(
            events(one.publisher.contains { $0 > 5 }), ["subscription(Optional)", "value(false)", "finished"])
        XCTAssertEqual(events(none.publisher.contains { $0 > 5 }), finishedEmptyOptional, "nil stays nil")
    }

    func testCollectPublishesAnEmptyArrayForNil() {
        assertType(one.publisher.collect(), Optional<[Int]>.Publisher.self)
        XCTAssertEqual(events(one.publisher.collect()), ["subscription(Optional)", "value([1])", "finished"])
        XCTAssertEqual(events(none.publisher.collect()), ["subscription(Optional)", "value([])", "finished"])
    }

    func testCountPublishesNothingForNil() {
        assertType(one.publisher.count(), Optional<Int>.Publisher.self)
        XCTAssertEqual(events(Optional("x").publisher.count()), optionalOne)
        XCTAssertEqual(events(none.publisher.count()), finishedEmptyOptional)
    }

    func testCompactMapFilterAndMap() {
        assertType(Optional("7").publisher.compactMap { Int($0) }, Optional<Int>.Publisher.self)
        XCTAssertEqual(
            events(Optional("7").publisher.compactMap { Int($0) }), ["subscription(Optional)", "value(7)", "finished"])
        XCTAssertEqual(events(Optional("x").publisher.compactMap { Int($0) }), finishedEmptyOptional)
        assertType(one.publisher.filter { $0 > 0 }, Optional<Int>.Publisher.self)
        XCTAssertEqual(events(one.publisher.filter { $0 > 0 }), optionalOne)
        XCTAssertEqual(events(one.publisher.filter { $0 > 5 }), finishedEmptyOptional)
        let label = one.publisher.map { "#\($0)" }
        assertType(label, Optional<String>.Publisher.self)
        XCTAssertEqual(events(label), ["subscription(Optional)", "value(#1)", "finished"])
    }

    func testDropFirstAndDropWhile() {
        assertType(one.publisher.dropFirst(), Optional<Int>.Publisher.self)
        XCTAssertEqual(events(one.publisher.dropFirst()), finishedEmptyOptional)
        XCTAssertEqual(events(one.publisher.dropFirst(0)), optionalOne)
        assertType(one.publisher.drop { $0 > 5 }, Optional<Int>.Publisher.self)
        XCTAssertEqual(events(one.publisher.drop { $0 > 5 }), optionalOne)
        XCTAssertEqual(events(one.publisher.drop { $0 > 0 }), finishedEmptyOptional)
    }

    func testFirstAndLast() {
        assertType(one.publisher.first(), Optional<Int>.Publisher.self)
        assertType(one.publisher.last(), Optional<Int>.Publisher.self)
        assertType(one.publisher.first { $0 > 0 }, Optional<Int>.Publisher.self)
        assertType(one.publisher.last { $0 > 0 }, Optional<Int>.Publisher.self)
        XCTAssertEqual(events(one.publisher.first()), optionalOne)
        XCTAssertEqual(events(one.publisher.last()), optionalOne)
        XCTAssertEqual(events(one.publisher.first { $0 > 0 }), optionalOne)
        XCTAssertEqual(events(one.publisher.last { $0 > 5 }), finishedEmptyOptional)
    }

    func testIgnoreOutput() {
        assertType(one.publisher.ignoreOutput(), Empty<Int, Never>.self)
        XCTAssertEqual(events(one.publisher.ignoreOutput()), finishedEmpty)
    }

    func testOutputAtAndIn() {
        assertType(one.publisher.output(at: 0), Optional<Int>.Publisher.self)
        XCTAssertEqual(events(one.publisher.output(at: 0)), optionalOne)
        XCTAssertEqual(events(one.publisher.output(at: 2)), finishedEmptyOptional)
        assertType(one.publisher.output(in: 0...3), Optional<Int>.Publisher.self)
        XCTAssertEqual(events(one.publisher.output(in: 0...3)), optionalOne)
        XCTAssertEqual(events(one.publisher.output(in: 0..<0)), finishedEmptyOptional)
        XCTAssertEqual(events(one.publisher.output(in: 2..<5)), finishedEmptyOptional)
        // As in Combine, an upper bound of `Int.max - 1` or more (`2...` included) stops the program.
    }

    func testPrefixAndPrefixWhile() {
        assertType(one.publisher.prefix(3), Optional<Int>.Publisher.self)
        XCTAssertEqual(events(one.publisher.prefix(3)), optionalOne)
        XCTAssertEqual(events(one.publisher.prefix(0)), finishedEmptyOptional)
        assertType(one.publisher.prefix { $0 > 0 }, Optional<Int>.Publisher.self)
        XCTAssertEqual(events(one.publisher.prefix { $0 > 0 }), optionalOne)
        XCTAssertEqual(events(one.publisher.prefix { $0 > 5 }), finishedEmptyOptional)
    }

    func testReducePublishesNothingForNilAndScan() {
        assertType(one.publisher.reduce(10, +), Optional<Int>.Publisher.self)
        XCTAssertEqual(events(one.publisher.reduce(10, +)), ["subscription(Optional)", "value(11)", "finished"])
        XCTAssertEqual(events(none.publisher.reduce(10, +)), finishedEmptyOptional)
        assertType(one.publisher.scan(10, +), Optional<Int>.Publisher.self)
        XCTAssertEqual(events(one.publisher.scan(10, +)), ["subscription(Optional)", "value(11)", "finished"])
        XCTAssertEqual(events(none.publisher.scan(10, +)), finishedEmptyOptional)
    }

    func testReplaceErrorReplaceEmptyAndRetry() {
        assertType(one.publisher.replaceError(with: 0), Optional<Int>.Publisher.self)
        XCTAssertEqual(events(one.publisher.replaceError(with: 0)), optionalOne)
        assertType(none.publisher.replaceEmpty(with: 0), Just<Int>.self)
        XCTAssertEqual(events(none.publisher.replaceEmpty(with: 0)), ["subscription(Just)", "value(0)", "finished"])
        XCTAssertEqual(events(one.publisher.replaceEmpty(with: 0)), justOne)
        assertType(one.publisher.retry(2), Optional<Int>.Publisher.self)
        XCTAssertEqual(events(one.publisher.retry(2)), optionalOne)
    }
}

// MARK: - Result.Publisher

final class ResultPublisherSpecializationsTests: XCTestCase {
    private typealias Success = Result<Int, TestError>.Publisher
    private let ok = Success(1)
    private let failed = Success(TestError(8))
    private let resultOne = ["subscription(Once)", "value(1)", "finished"]
    private let failure8 = ["subscription(Empty)", "failure(TestError(8))"]
    private let failure3 = ["subscription(Empty)", "failure(TestError(3))"]

    func testContainsValueAndRemoveDuplicates() {
        assertType(ok.contains(1), Result<Bool, TestError>.Publisher.self)
        XCTAssertEqual(events(ok.contains(1)), ["subscription(Once)", "value(true)", "finished"])
        XCTAssertEqual(events(failed.contains(1)), failure8)
        assertType(ok.removeDuplicates(), Success.self)
        assertType(ok.removeDuplicates(by: ==), Success.self)
        XCTAssertEqual(events(ok.removeDuplicates()), resultOne)
        XCTAssertEqual(events(failed.removeDuplicates(by: ==)), failure8)
    }

    func testTryRemoveDuplicates() {
        let unique = ok.tryRemoveDuplicates { _, _ in throw TestError(3) }
        assertType(unique, Result<Int, Error>.Publisher.self)
        XCTAssertEqual(events(unique), ["subscription(Empty)", "failure(TestError(3))"], "the value meets itself")
        XCTAssertEqual(events(ok.tryRemoveDuplicates { _, _ in false }), resultOne)
        XCTAssertEqual(events(failed.tryRemoveDuplicates(by: ==)), failure8)
    }

    func testMinMaxAndTryVariants() {
        assertType(ok.min(), Success.self)
        assertType(ok.max(), Success.self)
        assertType(ok.min(by: <), Success.self)
        assertType(ok.max(by: <), Success.self)
        XCTAssertEqual(events(ok.min()), resultOne)
        XCTAssertEqual(events(failed.max()), failure8)
        XCTAssertEqual(events(ok.max(by: <)), resultOne)
        let tryMin = ok.tryMin { _, _ in throw TestError(3) }
        assertType(tryMin, Result<Int, Error>.Publisher.self)
        XCTAssertEqual(events(tryMin), ["subscription(Empty)", "failure(TestError(3))"], "the value meets itself")
        XCTAssertEqual(events(ok.tryMax(by: <)), resultOne)
        let tryMax = failed.tryMax(by: <)
        assertType(tryMax, Result<Int, Error>.Publisher.self)
        XCTAssertEqual(events(tryMax), failure8)
    }

    func testAllSatisfyAndTryAllSatisfy() {
        assertType(ok.allSatisfy { $0 > 0 }, Result<Bool, TestError>.Publisher.self)
        XCTAssertEqual(events(ok.allSatisfy { $0 > 0 }), ["subscription(Once)", "value(true)", "finished"])
        XCTAssertEqual(events(failed.allSatisfy { $0 > 0 }), failure8)
        assertType(ok.tryAllSatisfy { $0 > 0 }, Result<Bool, Error>.Publisher.self)
        XCTAssertEqual(events(ok.tryAllSatisfy(thrower)), failure3)
        XCTAssertEqual(events(failed.tryAllSatisfy(thrower)), failure8)
    }

    func testContainsWhereAndTryContains() {
        assertType(ok.contains { $0 > 5 }, Result<Bool, TestError>.Publisher.self)
        XCTAssertEqual(events(ok.contains { $0 > 5 }), ["subscription(Once)", "value(false)", "finished"])
        assertType(ok.tryContains { $0 > 0 }, Result<Bool, Error>.Publisher.self)
        XCTAssertEqual(events(ok.tryContains { $0 > 0 }), ["subscription(Once)", "value(true)", "finished"])
        XCTAssertEqual(events(ok.tryContains(where: thrower)), failure3)
        XCTAssertEqual(events(failed.tryContains(where: thrower)), failure8)
    }

    func testCollectAndCount() {
        assertType(ok.collect(), Result<[Int], TestError>.Publisher.self)
        XCTAssertEqual(events(ok.collect()), ["subscription(Once)", "value([1])", "finished"])
        XCTAssertEqual(events(failed.collect()), failure8)
        assertType(ok.count(), Result<Int, TestError>.Publisher.self)
        XCTAssertEqual(events(Result<String, TestError>.Publisher("x").count()), resultOne)
        XCTAssertEqual(events(failed.count()), failure8)
    }

    func testFirstLastAndIgnoreOutput() {
        assertType(ok.first(), Success.self)
        assertType(ok.last(), Success.self)
        XCTAssertEqual(events(ok.first()), resultOne)
        XCTAssertEqual(events(failed.last()), failure8)
        assertType(ok.ignoreOutput(), Empty<Int, TestError>.self)
        XCTAssertEqual(events(ok.ignoreOutput()), finishedEmpty)
        XCTAssertEqual(events(failed.ignoreOutput()), finishedEmpty, "an Empty cannot fail: the failure is dropped")
    }

    func testMapTryMapAndMapError() {
        let label = ok.map { "#\($0)" }
        assertType(label, Result<String, TestError>.Publisher.self)
        XCTAssertEqual(events(label), ["subscription(Once)", "value(#1)", "finished"])
        XCTAssertEqual(events(failed.map { "#\($0)" }), failure8)
        let tried = ok.tryMap { $0 * 3 }
        assertType(tried, Result<Int, Error>.Publisher.self)
        XCTAssertEqual(events(tried), ["subscription(Once)", "value(3)", "finished"])
        XCTAssertEqual(events(ok.tryMap { _ -> Int in throw TestError(3) }), failure3)
        XCTAssertEqual(events(failed.tryMap { $0 }), failure8)
        let wrapped = failed.mapError { TestError($0.code + 1) }
        assertType(wrapped, Result<Int, TestError>.Publisher.self)
        XCTAssertEqual(events(wrapped), ["subscription(Empty)", "failure(TestError(9))"])
        let described = failed.mapError { DescribedError(text: "code \($0.code)") }
        assertType(described, Result<Int, DescribedError>.Publisher.self)
        XCTAssertEqual(described.result, .failure(DescribedError(text: "code 8")))
    }

    func testReplaceErrorReplaceEmptyAndRetry() {
        assertType(failed.replaceError(with: 0), Result<Int, Never>.Publisher.self)
        XCTAssertEqual(events(failed.replaceError(with: 0)), ["subscription(Once)", "value(0)", "finished"])
        XCTAssertEqual(events(ok.replaceError(with: 0)), resultOne)
        assertType(ok.replaceEmpty(with: 0), Success.self)
        XCTAssertEqual(events(ok.replaceEmpty(with: 0)), resultOne)
        XCTAssertEqual(events(failed.replaceEmpty(with: 0)), failure8)
        assertType(failed.retry(3), Success.self)
        XCTAssertEqual(events(failed.retry(3)), failure8)
    }

    func testReduceAndTryReduce() {
        assertType(ok.reduce(10, +), Success.self)
        XCTAssertEqual(events(ok.reduce(10, +)), ["subscription(Once)", "value(11)", "finished"])
        XCTAssertEqual(events(failed.reduce(10, +)), failure8)
        assertType(ok.tryReduce(10, +), Result<Int, Error>.Publisher.self)
        XCTAssertEqual(events(ok.tryReduce(10, +)), ["subscription(Once)", "value(11)", "finished"])
        XCTAssertEqual(events(ok.tryReduce(10) { _, _ in throw TestError(3) }), failure3)
    }

    func testScanAndTryScan() {
        assertType(ok.scan(10, +), Success.self)
        XCTAssertEqual(events(ok.scan(10, +)), ["subscription(Once)", "value(11)", "finished"])
        XCTAssertEqual(events(failed.scan(10, +)), failure8)
        assertType(ok.tryScan(10, +), Result<Int, Error>.Publisher.self)
        XCTAssertEqual(events(ok.tryScan(10, +)), ["subscription(Once)", "value(11)", "finished"])
        XCTAssertEqual(events(failed.tryScan(10) { _, _ in throw TestError(3) }), failure8)
    }

    func testSetFailureTypeOnANeverFailingResult() {
        let typed = Result<Int, Never>.Publisher(1).setFailureType(to: TestError.self)
        assertType(typed, Success.self)
        XCTAssertEqual(events(typed), resultOne)
    }
}

// MARK: - Publishers.Sequence

final class SequenceSpecializationsTests: XCTestCase {
    private typealias IntSequence = Publishers.Sequence<[Int], Never>

    /// A sequence publisher's subscription describes itself as its array (`[1, 2]`, or `["b", "c"]` for characters).
    private func sequenceEvents(_ values: [String], quoted: Bool = false, describedAs: String? = nil) -> [String] {
        let array = "[" + values.map { quoted ? "\"\($0)\"" : $0 }.joined(separator: ", ") + "]"
        return ["subscription(\(describedAs ?? array))"] + values.map { "value(\($0))" } + ["finished"]
    }

    func testMapFilterAndCompactMap() {
        let tens = [1, 2].publisher.map { $0 * 10 }
        assertType(tens, IntSequence.self)
        XCTAssertEqual(events(tens), sequenceEvents(["10", "20"]))
        let evens = [1, 2, 3, 4].publisher.filter { $0 % 2 == 0 }
        assertType(evens, IntSequence.self)
        XCTAssertEqual(events(evens), sequenceEvents(["2", "4"]))
        let numbers = ["1", "x", "3"].publisher.compactMap { Int($0) }
        assertType(numbers, IntSequence.self)
        XCTAssertEqual(events(numbers), sequenceEvents(["1", "3"]))
    }

    func testElementwiseClosuresRunWhenCalledNotPerSubscriber() {
        var calls = 0
        let mapped = [1, 2, 3].publisher.map { value -> Int in
            calls += 1
            return value
        }
        XCTAssertEqual(calls, 3)
        _ = events(mapped)
        _ = events(mapped)
        XCTAssertEqual(calls, 3)
    }

    func testScanAndReplaceNil() {
        let running = [1, 2, 3].publisher.scan(0, +)
        assertType(running, IntSequence.self)
        XCTAssertEqual(events(running), sequenceEvents(["1", "3", "6"]))
        let filled = [1, nil, 3].publisher.replaceNil(with: 0)
        assertType(filled, Publishers.Sequence<[Int?], Never>.self)
        XCTAssertEqual(filled.sequence, [1, 0, 3])
    }

    func testSetFailureType() {
        let typed = [1, 2].publisher.setFailureType(to: TestError.self)
        assertType(typed, Publishers.Sequence<[Int], TestError>.self)
        XCTAssertEqual(events(typed), sequenceEvents(["1", "2"]))
    }

    func testMinMaxAndFirstWhereNeedANeverFailure() {
        assertType([3, 1, 2].publisher.min(), Optional<Int>.Publisher.self)
        XCTAssertEqual(events([3, 1, 2].publisher.min()), optionalOne)
        XCTAssertEqual(events([3, 1, 2].publisher.max()), ["subscription(Optional)", "value(3)", "finished"])
        XCTAssertEqual(events([Int]().publisher.max()), finishedEmptyOptional)
        assertType([3, 1, 2].publisher.min(by: >), Optional<Int>.Publisher.self)
        XCTAssertEqual(events([3, 1, 2].publisher.min(by: >)), ["subscription(Optional)", "value(3)", "finished"])
        XCTAssertEqual(events([3, 1, 2].publisher.max(by: >)), optionalOne)
        assertType([1, 4, 6].publisher.first { $0 % 2 == 0 }, Optional<Int>.Publisher.self)
        XCTAssertEqual(
            events([1, 4, 6].publisher.first { $0 % 2 == 0 }), ["subscription(Optional)", "value(4)", "finished"])
        XCTAssertEqual(events([1, 3].publisher.first { $0 % 2 == 0 }), finishedEmptyOptional)
    }

    func testAllSatisfyContainsAndTheirTryVariants() {
        assertType([1, 2].publisher.allSatisfy { $0 > 0 }, Result<Bool, Never>.Publisher.self)
        XCTAssertEqual(
            events([1, 2].publisher.allSatisfy { $0 > 0 }), ["subscription(Once)", "value(true)", "finished"])
        assertType([1, 2].publisher.tryAllSatisfy { $0 > 0 }, Result<Bool, Error>.Publisher.self)
        XCTAssertEqual(
            events([1, 2].publisher.tryAllSatisfy(thrower)), ["subscription(Empty)", "failure(TestError(3))"])
        assertType([1, 2].publisher.contains { $0 > 1 }, Result<Bool, Never>.Publisher.self)
        XCTAssertEqual(
            events([1, 2].publisher.contains { $0 > 5 }), ["subscription(Once)", "value(false)", "finished"])
        assertType([1, 2].publisher.tryContains { $0 > 1 }, Result<Bool, Error>.Publisher.self)
        XCTAssertEqual(
            events([1, 2].publisher.tryContains { $0 > 1 }), ["subscription(Once)", "value(true)", "finished"])
        XCTAssertEqual(
            events([1, 2].publisher.tryContains(where: thrower)), ["subscription(Empty)", "failure(TestError(3))"])
        assertType([1, 2].publisher.contains(2), Result<Bool, Never>.Publisher.self)
        XCTAssertEqual(events([1, 2].publisher.contains(2)), ["subscription(Once)", "value(true)", "finished"])
    }

    func testCollectReduceAndTryReduce() {
        assertType((1...3).publisher.collect(), Result<[Int], Never>.Publisher.self)
        XCTAssertEqual(events((1...3).publisher.collect()), ["subscription(Once)", "value([1, 2, 3])", "finished"])
        assertType([1, 2, 3].publisher.reduce(0, +), Result<Int, Never>.Publisher.self)
        XCTAssertEqual(events([1, 2, 3].publisher.reduce(0, +)), ["subscription(Once)", "value(6)", "finished"])
        assertType([1, 2, 3].publisher.tryReduce(0, +), Result<Int, Error>.Publisher.self)
        XCTAssertEqual(events([1, 2, 3].publisher.tryReduce(0, +)), ["subscription(Once)", "value(6)", "finished"])
        XCTAssertEqual(
            events([1, 2].publisher.tryReduce(0) { _, _ in throw TestError(3) }),
            ["subscription(Empty)", "failure(TestError(3))"])
    }

    func testDropAndPrefixKeepLazyStandardLibraryWrappers() {
        let rest = [1, 2, 3].publisher.dropFirst()
        assertType(rest, Publishers.Sequence<DropFirstSequence<[Int]>, Never>.self)
        XCTAssertEqual(events(rest), sequenceEvents(["2", "3"], describedAs: String(describing: rest.sequence)))
        let dropped = [1, 2, 5, 1].publisher.drop { $0 < 3 }
        assertType(dropped, Publishers.Sequence<DropWhileSequence<[Int]>, Never>.self)
        XCTAssertEqual(events(dropped), sequenceEvents(["5", "1"], describedAs: String(describing: dropped.sequence)))
        let head = [1, 2, 3].publisher.prefix(2)
        assertType(head, Publishers.Sequence<PrefixSequence<[Int]>, Never>.self)
        XCTAssertEqual(events(head), sequenceEvents(["1", "2"], describedAs: String(describing: head.sequence)))
        let whileSmall = [1, 2, 5, 1].publisher.prefix { $0 < 3 }
        assertType(whileSmall, IntSequence.self)
        XCTAssertEqual(events(whileSmall), sequenceEvents(["1", "2"]))
    }

    func testIgnoreOutputAndRemoveDuplicates() {
        assertType([1, 2].publisher.ignoreOutput(), Empty<Int, Never>.self)
        XCTAssertEqual(events([1, 2].publisher.ignoreOutput()), finishedEmpty)
        let changes = [1, 1, 2, 2, 1, 3, 3].publisher.removeDuplicates()
        assertType(changes, IntSequence.self)
        XCTAssertEqual(events(changes), sequenceEvents(["1", "2", "1", "3"]))
    }

    func testCollectionOperators() {
        assertType([7, 8].publisher.first(), Optional<Int>.Publisher.self)
        XCTAssertEqual(events([7, 8].publisher.first()), ["subscription(Optional)", "value(7)", "finished"])
        XCTAssertEqual(events([Int]().publisher.first()), finishedEmptyOptional)
        assertType([7, 8].publisher.last(), Optional<Int>.Publisher.self)
        XCTAssertEqual(events([7, 8].publisher.last()), ["subscription(Optional)", "value(8)", "finished"])
        assertType([2, 4, 5].publisher.last { $0 % 2 == 0 }, Optional<Int>.Publisher.self)
        XCTAssertEqual(
            events([2, 4, 5].publisher.last { $0 % 2 == 0 }), ["subscription(Optional)", "value(4)", "finished"])
        assertType([7, 8, 9].publisher.output(at: 1), Optional<Int>.Publisher.self)
        XCTAssertEqual(events([7, 8, 9].publisher.output(at: 1)), ["subscription(Optional)", "value(8)", "finished"])
        XCTAssertEqual(events([7, 8, 9].publisher.output(at: 5)), finishedEmptyOptional)
        let middle = [7, 8, 9, 10].publisher.output(in: 1..<3)
        assertType(middle, IntSequence.self)
        XCTAssertEqual(events(middle), sequenceEvents(["8", "9"]))
        // A non-random-access collection takes the Collection overloads.
        let word = "abc"
        let second = word.publisher.output(at: word.index(after: word.startIndex))
        assertType(second, Optional<Character>.Publisher.self)
        XCTAssertEqual(events(second), ["subscription(Optional)", "value(b)", "finished"])
        let tail = word.publisher.output(in: word.index(after: word.startIndex)..<word.endIndex)
        assertType(tail, Publishers.Sequence<[Character], Never>.self)
        XCTAssertEqual(events(tail), sequenceEvents(["b", "c"], quoted: true))
    }

    func testCountOverloads() {
        assertType([7, 8, 9].publisher.count(), Just<Int>.self)
        XCTAssertEqual(events([7, 8, 9].publisher.count()), ["subscription(Just)", "value(3)", "finished"])
        let failable = [7, 8].publisher.setFailureType(to: TestError.self).count()
        assertType(failable, Result<Int, TestError>.Publisher.self)
        XCTAssertEqual(events(failable), ["subscription(Once)", "value(2)", "finished"])
        let set = Publishers.Sequence<Set<Int>, TestError>(sequence: [1, 2, 3]).count()
        assertType(set, Result<Int, TestError>.Publisher.self)
        XCTAssertEqual(events(set), ["subscription(Once)", "value(3)", "finished"])
    }

    func testPrependAndAppend() {
        assertType([3, 4].publisher.prepend(1, 2), IntSequence.self)
        XCTAssertEqual(events([3, 4].publisher.prepend(1, 2)), sequenceEvents(["1", "2", "3", "4"]))
        XCTAssertEqual([3, 4].publisher.prepend(1...2).sequence, [1, 2, 3, 4])
        XCTAssertEqual([3, 4].publisher.prepend([1, 2].publisher).sequence, [1, 2, 3, 4])
        assertType([1, 2].publisher.append(3, 4), IntSequence.self)
        XCTAssertEqual(events([1, 2].publisher.append(3, 4)), sequenceEvents(["1", "2", "3", "4"]))
        XCTAssertEqual([1, 2].publisher.append(3...4).sequence, [1, 2, 3, 4])
        XCTAssertEqual([1, 2].publisher.append([3, 4].publisher).sequence, [1, 2, 3, 4])
    }

    func testChainsKeepTheSequenceType() {
        let chain = [5, 1, 1, 4, 2].publisher
            .removeDuplicates()
            .filter { $0 > 1 }
            .map { $0 * 2 }
            .append(0)
        assertType(chain, IntSequence.self)
        XCTAssertEqual(chain.sequence, [10, 8, 4, 0])
    }
}
