import Foundation
import Untangle
import XCTest

final class AsyncThrowingPublisherTests: XCTestCase {
    func testValuesThenTheFailureIsThrownOnceThenNil() async {
        let probe = AsyncProbePublisher<Int, TestError>()
        var events = probe.events.makeAsyncIterator()
        let consumer = Task { () -> [String] in
            var iterator = probe.values.makeAsyncIterator()
            var log: [String] = []
            for _ in 0..<3 {
                do {
                    let value = try await iterator.next()
                    log.append(value.map { "value(\($0))" } ?? "nil")
                } catch {
                    log.append("threw \(error)")
                }
            }
            return log
        }
        _ = await events.next()
        probe.send(1)
        _ = await events.next()
        probe.send(completion: .failure(TestError(3)))
        let log = await consumer.value
        XCTAssertEqual(log, ["value(1)", "threw TestError(3)", "nil"])
    }

    func testAFailureArrivingBeforeAnyNextIsThrownByTheFirstNext() async {
        var iterator = Fail<Int, TestError>(error: TestError(9)).values.makeAsyncIterator()
        do {
            _ = try await iterator.next()
            XCTFail("expected a throw")
        } catch {
            XCTAssertEqual(error as? TestError, TestError(9))
        }
        let after = try? await iterator.next()
        XCTAssertNil(after ?? nil)
    }

    func testForTryAwaitReceivesEveryValueOfAFinishingPublisher() async throws {
        var received: [Int] = []
        let upstream = [1, 2, 3].publisher.setFailureType(to: TestError.self)
        for try await value in upstream.values {
            received.append(value)
        }
        XCTAssertEqual(received, [1, 2, 3])
    }

    func testCancellingTheTaskCancelsTheUpstreamAndEndsWithoutThrowing() async {
        let probe = AsyncProbePublisher<Int, TestError>()
        var events = probe.events.makeAsyncIterator()
        let consumer = Task { () -> String in
            do {
                for try await _ in probe.values {}
                return "ended"
            } catch {
                return "threw \(error)"
            }
        }
        _ = await events.next()
        consumer.cancel()
        let cancel = await events.next()
        XCTAssertEqual(cancel, .cancel)
        let outcome = await consumer.value
        XCTAssertEqual(outcome, "ended")
    }

    // The failure follows a value the upstream delivered inside the request: the value first, then the throw.
    func testAFailureAfterASynchronouslyDeliveredValueComesOnTheNextCall() async throws {
        let upstream = [1].publisher.setFailureType(to: TestError.self).append(Fail(error: TestError(7)))
        var iterator = upstream.values.makeAsyncIterator()
        let first = try await iterator.next()
        XCTAssertEqual(first, 1)
        do {
            _ = try await iterator.next()
            XCTFail("the failure was not thrown")
        } catch {
            XCTAssertEqual(error as? TestError, TestError(7))
        }
        let afterFailure = try await iterator.next()
        XCTAssertNil(afterFailure)
    }
}
