import Untangle
import XCTest

final class SetFailureTypeTests: XCTestCase {
    func testPassesValuesDemandAndFinishThroughWithTheNewFailureType() {
        let upstream = ManualPublisher<Int, Never>()
        let recorder = Recorder<Int, TestError>(initialDemand: .max(2))
        let typed: Publishers.SetFailureType<ManualPublisher<Int, Never>, TestError> = upstream.setFailureType(
            to: TestError.self)
        typed.subscribe(recorder)
        XCTAssertEqual(upstream.send(1), .none)
        upstream.send(completion: .finished)
        recorder.cancel()
        XCTAssertEqual(
            recorder.events, [.subscription("ManualSubscription"), .value(1), .completion(.finished)])
        XCTAssertEqual(upstream.history, [.request(.max(2)), .cancel])
    }

    func testSetFailureTypeTwiceIsOneStageAndEquatable() {
        let twice: Publishers.SetFailureType<Just<Int>, Error> = Just(1).setFailureType(to: TestError.self)
            .setFailureType(to: Error.self)
        XCTAssertEqual(Just(1).setFailureType(to: TestError.self), Just(1).setFailureType(to: TestError.self))
        let recorder = Recorder<Int, Error>()
        twice.subscribe(recorder)
        XCTAssertEqual(recorder.values, [1])
        XCTAssertEqual(recorder.completions.count, 1)
    }
}

final class SetFailureTypeEquatableAndTypeTests: XCTestCase {
    func testChangesOnlyTheDeclaredType() {
        let publisher: Publishers.SetFailureType<Just<Int>, TestError> = Just(1).setFailureType(to: TestError.self)
        let recorder = Recorder<Int, TestError>()
        publisher.subscribe(recorder)
        XCTAssertEqual(recorder.values, [1])
        XCTAssertEqual(recorder.completions, [.finished])
        let again: Publishers.SetFailureType<Just<Int>, URLError> = publisher.setFailureType(to: URLError.self)
        XCTAssertEqual(again, Just(1).setFailureType(to: URLError.self))
    }

    func testDemandAndCancelAreTheUpstreams() {
        let upstream = ManualPublisher<Int, Never>()
        let recorder = Recorder<Int, TestError>(initialDemand: .max(2))
        upstream.setFailureType(to: TestError.self).subscribe(recorder)
        upstream.send(1)
        upstream.send(completion: .finished)
        XCTAssertEqual(recorder.events, [.subscription("ManualSubscription"), .value(1), .completion(.finished)])
        recorder.cancel()
        XCTAssertEqual(upstream.history, [.request(.max(2)), .cancel])
    }
}
