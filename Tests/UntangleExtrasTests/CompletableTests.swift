import Foundation
import Untangle
import UntangleExtras
import UntangleSync
import XCTest

final class CompletableTests: XCTestCase {
    func testConstructors() {
        let empty = Recorder<Never, TestError>(initialDemand: nil)
        Completable<TestError>.empty.subscribe(empty)
        XCTAssertEqual(empty.completions, [.finished], "a completion needs no demand")

        let failed = Recorder<Never, TestError>()
        Completable(error: TestError(1)).subscribe(failed)
        XCTAssertEqual(failed.completions, [.failure(TestError(1))])

        let promised = Recorder<Never, TestError>()
        Completable<TestError> { promise in promise(.success(())) }.subscribe(promised)
        XCTAssertEqual(promised.completions, [.finished])
    }

    func testAsCompletableFailsOnAValueAndCancelsUpstreamEvenWithoutDemand() {
        let upstream = ManualPublisher<Int, TestError>()
        let recorder = Recorder<Never, TestError>(initialDemand: nil)
        upstream.asCompletable { _ in TestError(99) }.subscribe(recorder)
        XCTAssertEqual(upstream.history, [.request(.unlimited)])
        upstream.send(1)
        XCTAssertEqual(recorder.completions, [.failure(TestError(99))])
        XCTAssertEqual(upstream.history, [.request(.unlimited), .cancel])

        let erased = Recorder<Never, any Error>()
        Just(1).asCompletable().subscribe(erased)
        guard case .failure(let error) = erased.completions.first else { return XCTFail("\(erased.events)") }
        XCTAssertEqual(error as? TraitViolation, .unexpectedValue)
    }

    func testIgnoreOutputThenAsCompletableDropsValues() {
        let recorder = Recorder<Never, TestError>()
        [1, 2].publisher.setFailureType(to: TestError.self).ignoreOutput().asCompletable { _ in TestError(99) }
            .subscribe(recorder)
        XCTAssertEqual(recorder.completions, [.finished])
    }

    func testAndThenRunsTheNextOnlyAfterFinishing() {
        let order = LockedBox<[String]>([])
        let first = Completable<TestError> { promise in
            order.withLock { $0.append("first") }
            promise(.success(()))
        }
        let next = Single<Int, TestError> { promise in
            order.withLock { $0.append("next") }
            promise(.success(1))
        }
        let recorder = Recorder<Int, TestError>()
        first.andThen(next).subscribe(recorder)
        XCTAssertEqual(order.withLock { $0 }, ["first", "next"])
        XCTAssertEqual(recorder.values, [1])
        XCTAssertEqual(recorder.completions, [.finished])

        let skipped = Recorder<Int, TestError>()
        Completable(error: TestError(2)).andThen(Maybe<Int, TestError>(1)).subscribe(skipped)
        XCTAssertEqual(skipped.values, [])
        XCTAssertEqual(skipped.completions, [.failure(TestError(2))])

        let both = Recorder<Never, TestError>()
        Completable<TestError>.empty.andThen(Completable(error: TestError(3))).subscribe(both)
        XCTAssertEqual(both.completions, [.failure(TestError(3))])
    }

    // ReactiveX/RxSwift dcc77bd9 (issue 1347): after a completable that finished while being subscribed (`empty`),
    // andThen overwrote the next publisher's subscription with the first one's, which cancelled the next one. The
    // next one stays subscribed and decides the end; a failure of the next one ends it too.
    func testAndThenAfterACompletableThatFinishesWhileSubscribingKeepsTheNextRunning() {
        let next = ManualPublisher<Never, TestError>(recordsSubscriptions: true)
        let recorder = Recorder<Never, TestError>()
        Completable<TestError>.empty.andThen(next.asCompletable(violation: { _ in TestError(0) })).subscribe(recorder)
        XCTAssertEqual(next.subscriptions, 1)
        XCTAssertFalse(next.history.contains(.cancel))
        XCTAssertEqual(recorder.completions, [])
        next.finish()
        XCTAssertEqual(recorder.completions, [.finished])

        let nextSingle = ManualPublisher<Int, TestError>(recordsSubscriptions: true)
        let single = Recorder<Int, TestError>()
        Completable<TestError>.empty.andThen(nextSingle.asSingle(violation: { _ in TestError(0) })).subscribe(single)
        XCTAssertFalse(nextSingle.history.contains(.cancel))
        nextSingle.send(4)
        nextSingle.finish()
        XCTAssertEqual(single.values, [4])
        XCTAssertEqual(single.completions, [.finished])

        let failing = ManualPublisher<Never, TestError>(recordsSubscriptions: true)
        let failed = Recorder<Never, TestError>()
        Completable<TestError>.empty.andThen(failing.asCompletable(violation: { _ in TestError(0) })).subscribe(failed)
        failing.send(completion: .failure(TestError(8)))
        XCTAssertEqual(failed.completions, [.failure(TestError(8))])
    }

    func testMapErrorAndCatch() {
        let recorder = Recorder<Never, Never>()
        Completable(error: TestError(1)).mapError { TestError($0.code + 1) }
            .catch { _ in Completable<Never>.empty }
            .subscribe(recorder)
        XCTAssertEqual(recorder.completions, [.finished])
    }

    func testAsyncValue() async throws {
        try await Completable<TestError>.empty.value
        do {
            try await Completable(error: TestError(4)).value
            XCTFail("expected a failure")
        } catch {
            XCTAssertEqual(error as? TestError, TestError(4))
        }
    }
}
