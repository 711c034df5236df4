import Dispatch
import Foundation
import Untangle
import UntangleExtras
import UntangleSync
import UntangleTesting
import XCTest

/// Actor isolation on UntangleExtras' closure-taking operators (issue 29): UntangleExtras is compiled in Swift 5 mode,
/// as Untangle is, so a closure formed on the main actor in this Swift 6 test target carries Swift's own isolation
/// check. The firing side stops the process (tested in child processes by Examples/Swift6Client); these tests show
/// that correct code sees nothing: closures formed on the main actor and called on the main thread, and nonisolated
/// closures called anywhere.
final class IsolationTests: XCTestCase {
    func testMainActorOperatorsFedOnTheMainThreadAreSilent() {
        MainActor.assumeIsolated {
            let subject = PassthroughSubject<Int, Never>()
            var latest: [Int] = []
            var concatenated: [Int] = []
            var keys: [Int] = []
            var combined: [String] = []
            var first: [Int] = []
            let other = CurrentValueSubject<String, Never>("a")
            let cancellables = [
                subject.flatMapLatest { Just($0 * 10) }.sink { latest.append($0) },
                subject.concatMap { Just($0 + 100) }.sink { concatenated.append($0) },
                subject.groupBy { $0 % 2 }.sink { group in keys.append(group.key) },
                subject.withLatestFrom(other) { "\($0)\($1)" }.sink { combined.append($0) },
                subject.flatMapFirst { Just(-$0) }.sink { first.append($0) },
            ]
            subject.send(1)
            subject.send(2)
            subject.send(3)
            XCTAssertEqual(latest, [10, 20, 30])
            XCTAssertEqual(concatenated, [101, 102, 103])
            XCTAssertEqual(keys, [1, 0])
            XCTAssertEqual(combined, ["1a", "2a", "3a"])
            XCTAssertEqual(first, [-1, -2, -3])
            cancellables.forEach { $0.cancel() }
        }
    }

    func testMainActorTraitClosuresCalledOnTheMainThreadAreSilent() {
        MainActor.assumeIsolated {
            var values: [String] = []
            var failures: [TestError] = []
            let singles = [
                Single<Int, TestError>(4).map { "single \($0)" }.sink(
                    receiveCompletion: { _ in }, receiveValue: { values.append($0) }),
                Single<Int, TestError>(5).flatMap { Single<String, TestError>("flat \($0)") }.sink(
                    receiveCompletion: { _ in }, receiveValue: { values.append($0) }),
                Single<Int, TestError>(8).tryMap { "try \($0)" }.sink(
                    receiveCompletion: { _ in }, receiveValue: { values.append($0) }),
                Maybe<Int, TestError>(6).map { "maybe \($0)" }.sink(
                    receiveCompletion: { _ in }, receiveValue: { values.append($0) }),
                Single<String, TestError>(error: TestError(2)).catch { Single<String, TestError>("caught \($0.code)") }
                    .sink(receiveCompletion: { _ in }, receiveValue: { values.append($0) }),
                Single<Int, TestError>(error: TestError(1)).mapError { TestError($0.code + 10) }.sink(
                    receiveCompletion: { if case .failure(let error) = $0 { failures.append(error) } },
                    receiveValue: { _ in }),
            ]
            XCTAssertEqual(values, ["single 4", "flat 5", "try 8", "maybe 6", "caught 2"])
            XCTAssertEqual(failures, [TestError(11)])
            singles.forEach { $0.cancel() }
        }
    }

    func testNonisolatedOperatorsRunOnTheSendingThread() {
        let subject = PassthroughSubject<Int, Never>()
        let values = LockedBox<[Int]>([])
        let cancellable = subject.flatMapLatest { Just($0 * 2) }
            .concatMap { Just($0 + 1) }
            .sink { value in values.withLock { $0.append(value) } }
        let sent = DispatchSemaphore(value: 0)
        Thread {
            subject.send(1)
            subject.send(2)
            sent.signal()
        }.start()
        XCTAssertEqual(sent.wait(timeout: .now() + 30), .success, "watchdog: the sending thread did not finish")
        XCTAssertEqual(values.withLock { $0 }, [3, 5])
        cancellable.cancel()
    }

    func testDriverDrivenFromTheMainActorDeliversOnTheMainThread() {
        MainActor.assumeIsolated {
            let subject = PassthroughSubject<Int, Never>()
            var values: [Int] = []
            let cancellable = subject.asDriver().drive { values.append($0) }
            Thread { subject.send(7) }.start()
            let deadline = Date().addingTimeInterval(30)
            while values.isEmpty && Date() < deadline {
                _ = RunLoop.main.run(mode: .default, before: Date().addingTimeInterval(0.01))
            }
            XCTAssertEqual(values, [7])
            cancellable.cancel()
        }
    }

    func testMainActorRetryPredicateCalledOnTheMainThreadIsSilent() {
        MainActor.assumeIsolated {
            let scheduler = TestScheduler()
            var asked: [TestError] = []
            var completions: [Subscribers.Completion<TestError>] = []
            let cancellable = Fail<Int, TestError>(error: TestError(2))
                .retry(1, backoff: .constant(0), scheduler: scheduler) { error in
                    asked.append(error)
                    return true
                }
                .sink(receiveCompletion: { completions.append($0) }, receiveValue: { _ in })
            scheduler.run()
            XCTAssertEqual(asked, [TestError(2)], "asked once: the second failure is past the retry count")
            XCTAssertEqual(completions, [.failure(TestError(2))])
            cancellable.cancel()
        }
    }
}
