import Foundation
import Untangle
import UntangleExtras
import UntangleSync
import XCTest

final class HandleTerminationTests: XCTestCase {
    func testRunsAfterTheCompletionReachedTheSubscriber() {
        let log = LockedBox<[String]>([])
        let cancellable = [1, 2].publisher
            .handleTermination { log.withLock { $0.append("terminated") } }
            .sink(
                receiveCompletion: { _ in log.withLock { $0.append("finished") } },
                receiveValue: { value in log.withLock { $0.append("\(value)") } })
        XCTAssertEqual(log.withLock { $0 }, ["1", "2", "finished", "terminated"])
        cancellable.cancel()
        XCTAssertEqual(log.withLock { $0 }.count, 4, "cancel after the end runs nothing more")
    }

    func testRunsAfterAFailureReachedTheSubscriber() {
        let log = LockedBox<[String]>([])
        let recorder = Recorder<Int, TestError>(
            onValue: { _, _ in .none })
        Fail<Int, TestError>(error: TestError(4))
            .handleTermination { log.withLock { $0.append("terminated after \(recorder.events.count) events") } }
            .subscribe(recorder)
        XCTAssertEqual(recorder.events, [.subscription("HandleTermination"), .completion(.failure(TestError(4)))])
        XCTAssertEqual(log.withLock { $0 }, ["terminated after 2 events"])
    }

    func testRunsOnceOnCancelAfterCancellingTheUpstream() {
        let upstream = ManualPublisher<Int, Never>()
        let runs = LockedBox<[String]>([])
        let recorder = Recorder<Int, Never>(initialDemand: .max(2))
        upstream.handleTermination { runs.withLock { $0.append("terminated") } }.subscribe(recorder)
        upstream.send(1)
        recorder.cancel()
        recorder.cancel()
        XCTAssertEqual(runs.withLock { $0 }, ["terminated"])
        XCTAssertEqual(upstream.history, [.request(.max(2)), .cancel])
        XCTAssertEqual(recorder.values, [1])
    }
}

final class HandleTerminationConcurrencyTests: XCTestCase {
    func testCancelRacingTheCompletionRunsTheHookExactlyOnce() {
        for _ in 0..<200 {
            let runs = LockedBox(0)
            let upstream = ManualPublisher<Int, Never>()
            let recorder = Recorder<Int, Never>()
            upstream.handleTermination { runs.withLock { $0 += 1 } }.subscribe(recorder)
            runConcurrently(threads: 2) { thread in
                if thread == 0 { upstream.send(completion: .finished) } else { recorder.cancel() }
            }
            XCTAssertEqual(runs.withLock { $0 }, 1)
        }
    }
}
