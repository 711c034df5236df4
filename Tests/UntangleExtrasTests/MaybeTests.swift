import Foundation
import Untangle
import UntangleExtras
import UntangleSync
import XCTest

final class MaybeTests: XCTestCase {
    func testConstructors() {
        let some = Recorder<Int, TestError>()
        Maybe<Int, TestError>(1).subscribe(some)
        XCTAssertEqual(some.values, [1])
        XCTAssertEqual(some.completions, [.finished])

        let none = Recorder<Int, TestError>()
        Maybe<Int, TestError>.empty.subscribe(none)
        XCTAssertEqual(none.values, [])
        XCTAssertEqual(none.completions, [.finished])

        let failed = Recorder<Int, TestError>()
        Maybe<Int, TestError>(error: TestError(2)).subscribe(failed)
        XCTAssertEqual(failed.completions, [.failure(TestError(2))])

        let promisedNil = Recorder<Int, TestError>()
        Maybe<Int, TestError> { promise in promise(.success(nil)) }.subscribe(promisedNil)
        XCTAssertEqual(promisedNil.values, [])
        XCTAssertEqual(promisedNil.completions, [.finished])
    }

    func testAsMaybeAcceptsZeroOrOneValueAndRejectsTwo() {
        let empty = Recorder<Int, TestError>()
        Empty<Int, TestError>().asMaybe { _ in TestError(99) }.subscribe(empty)
        XCTAssertEqual(empty.completions, [.finished])

        let upstream = ManualPublisher<Int, TestError>()
        let two = Recorder<Int, TestError>()
        upstream.asMaybe { _ in TestError(99) }.subscribe(two)
        upstream.send(1)
        upstream.send(2)
        XCTAssertEqual(two.values, [])
        XCTAssertEqual(two.completions, [.failure(TestError(99))])
        XCTAssertEqual(upstream.history, [.request(.unlimited), .cancel])

        let erased = Recorder<Int, any Error>()
        [1, 2].publisher.asMaybe().subscribe(erased)
        guard case .failure(let error) = erased.completions.first else { return XCTFail("\(erased.events)") }
        XCTAssertEqual(error as? TraitViolation, .moreThanOneValue)
    }

    func testAsMaybeDeliversItsOneValueOnFinishAndPassesUpstreamFailuresThrough() {
        let upstream = ManualPublisher<Int, TestError>()
        let one = Recorder<Int, TestError>()
        upstream.asMaybe { _ in TestError(99) }.subscribe(one)
        upstream.send(1)
        XCTAssertEqual(one.values, [], "the value waits for the upstream to finish")
        upstream.send(completion: .finished)
        XCTAssertEqual(one.values, [1])
        XCTAssertEqual(one.completions, [.finished])

        let failed = Recorder<Int, TestError>()
        Fail<Int, TestError>(error: TestError(5)).asMaybe { _ in TestError(99) }.subscribe(failed)
        XCTAssertEqual(failed.values, [])
        XCTAssertEqual(failed.completions, [.failure(TestError(5))])
    }

    func testAsMaybeHandsOnlyMoreThanOneValueToItsViolationClosure() {
        let seen = LockedBox([TraitViolation]())
        let violation: (TraitViolation) -> TestError = { violation in
            seen.withLock { $0.append(violation) }
            return TestError(99)
        }
        Empty<Int, TestError>().asMaybe(violation: violation).subscribe(Recorder<Int, TestError>())
        [1, 2].publisher.setFailureType(to: TestError.self).asMaybe(violation: violation)
            .subscribe(Recorder<Int, TestError>())
        XCTAssertEqual(seen.withLock { $0 }, [.moreThanOneValue])
    }

    func testCreateRunsItsTeardownOnCancel() {
        let teardowns = LockedBox(0)
        let maybe = Maybe<Int, TestError>.create { _ in AnyCancellable { teardowns.withLock { $0 += 1 } } }
        let recorder = Recorder<Int, TestError>()
        maybe.subscribe(recorder)
        recorder.cancel()
        XCTAssertEqual(teardowns.withLock { $0 }, 1)
    }

    func testValueWaitsForDemand() {
        let recorder = Recorder<Int, TestError>(initialDemand: nil)
        Just(1).setFailureType(to: TestError.self).asMaybe { _ in TestError(99) }.subscribe(recorder)
        XCTAssertEqual(recorder.values, [])
        recorder.request(.max(1))
        XCTAssertEqual(recorder.values, [1])
        XCTAssertEqual(recorder.completions, [.finished])
    }

    func testOperatorsKeepTheTrait() {
        let mapped = Recorder<String, TestError>()
        Maybe<Int, TestError>(2).map { "v\($0)" }.subscribe(mapped)
        XCTAssertEqual(mapped.values, ["v2"])

        let flat = Recorder<Int, TestError>()
        Maybe<Int, TestError>(2).flatMap { Maybe<Int, TestError>($0 + 1) }.subscribe(flat)
        XCTAssertEqual(flat.values, [3])
        XCTAssertEqual(flat.completions, [.finished])

        let flatEmpty = Recorder<Int, TestError>()
        Maybe<Int, TestError>.empty.flatMap { Maybe<Int, TestError>($0 + 1) }.subscribe(flatEmpty)
        XCTAssertEqual(flatEmpty.values, [])
        XCTAssertEqual(flatEmpty.completions, [.finished])

        let caught = Recorder<Int, Never>()
        Maybe<Int, TestError>(error: TestError()).catch { _ in Maybe<Int, Never>.empty }.subscribe(caught)
        XCTAssertEqual(caught.completions, [.finished])

        let mappedError = Recorder<Int, TestError>()
        Maybe<Int, TestError>(error: TestError(1)).mapError { TestError($0.code + 1) }.subscribe(mappedError)
        XCTAssertEqual(mappedError.completions, [.failure(TestError(2))])
    }

    func testReplaceEmptyMakesASingle() {
        let empty = Recorder<Int, TestError>()
        Maybe<Int, TestError>.empty.replaceEmpty(with: 7).subscribe(empty)
        XCTAssertEqual(empty.values, [7])
        XCTAssertEqual(empty.completions, [.finished])
        let some = Recorder<Int, TestError>()
        Maybe<Int, TestError>(1).replaceEmpty(with: 7).subscribe(some)
        XCTAssertEqual(some.values, [1])
    }

    func testAsyncValue() async throws {
        let some = try await Maybe<Int, TestError>(3).value
        XCTAssertEqual(some, 3)
        let none = try await Maybe<Int, TestError>.empty.value
        XCTAssertNil(none)
    }
}
