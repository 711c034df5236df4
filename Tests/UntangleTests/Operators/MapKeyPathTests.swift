import Untangle
import XCTest

private struct Roll {
    let die: Int
    let other: String
    let third: Bool
}

final class MapKeyPathTests: XCTestCase {
    func testOneTwoAndThreeKeyPaths() {
        let rolls = [Roll(die: 3, other: "a", third: true), Roll(die: 5, other: "b", third: false)]
        let one = Recorder<Int, Never>()
        rolls.publisher.map(\.die).subscribe(one)
        XCTAssertEqual(one.values, [3, 5])
        var pairs: [String] = []
        let two = rolls.publisher.map(\.die, \.other).sink { pairs.append("\($0.0)\($0.1)") }
        XCTAssertEqual(pairs, ["3a", "5b"])
        var triples: [String] = []
        let three = rolls.publisher.map(\.die, \.other, \.third).sink { triples.append("\($0.0)\($0.1)\($0.2)") }
        XCTAssertEqual(triples, ["3atrue", "5bfalse"])
        two.cancel()
        three.cancel()
    }

    func testDemandAndCancelAreTheUpstreams() {
        let upstream = ManualPublisher<Roll, TestError>()
        let recorder = Recorder<Int, TestError>(initialDemand: .max(1)) { _, _ in .max(2) }
        upstream.map(\.die).subscribe(recorder)
        XCTAssertEqual(upstream.send(Roll(die: 1, other: "", third: true)), .max(2))
        upstream.send(completion: .failure(TestError()))
        XCTAssertEqual(
            recorder.events, [.subscription("ManualSubscription"), .value(1), .completion(.failure(TestError()))])
        recorder.cancel()
        XCTAssertEqual(upstream.history, [.request(.max(1)), .cancel])
        XCTAssertTrue(sinkIsReleased(ManualPublisher<Roll, Never>().map(\.die, \.other), cancel: true))
    }
}

final class MapErrorTests: XCTestCase {
    func testFailureIsMappedAndValuesPass() {
        let upstream = ManualPublisher<Int, TestError>()
        let recorder = Recorder<Int, TestError>(initialDemand: .max(1)) { _, _ in .max(1) }
        upstream.mapError { TestError($0.code + 100) }.subscribe(recorder)
        XCTAssertEqual(upstream.send(1), .max(1))
        upstream.send(completion: .failure(TestError(1)))
        XCTAssertEqual(
            recorder.events, [.subscription("ManualSubscription"), .value(1), .completion(.failure(TestError(101)))])
        recorder.cancel()
        XCTAssertEqual(upstream.history, [.request(.max(1)), .cancel])
    }

    func testBothInitializersAndFinished() {
        let a = Publishers.MapError(upstream: Just(1).setFailureType(to: TestError.self), { _ in TestError(2) })
        let b = Publishers.MapError(upstream: Just(1).setFailureType(to: TestError.self), transform: { $0 })
        let recorder = Recorder<Int, TestError>()
        a.subscribe(recorder)
        b.subscribe(recorder)
        XCTAssertEqual(recorder.values, [1, 1])
        XCTAssertEqual(recorder.completions, [.finished, .finished])
    }
}

final class ReplaceNilTests: XCTestCase {
    func testReplacesNilAndReturnsAMap() {
        let numbers: [Int?] = [1, nil, 3]
        let publisher: Publishers.Map<Publishers.Sequence<[Int?], Never>, Int> = numbers.publisher.replaceNil(with: 0)
        let recorder = Recorder<Int, Never>()
        publisher.subscribe(recorder)
        XCTAssertEqual(recorder.values, [1, 0, 3])
    }
}
