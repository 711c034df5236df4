import Foundation
import Untangle
import XCTest

final class FutureValueTests: XCTestCase {
    func testValueOfANeverFailingFutureFulfilledLaterOnAnotherThread() async {
        let box = PromiseBox<Int, Never>()
        let future = box.makeFuture()
        DispatchQueue.global().async { box.fulfil(.success(42)) }
        let value = await future.value
        XCTAssertEqual(value, 42)
    }

    func testValueOfAnAlreadyFulfilledFuture() async throws {
        let future = Future<String, TestError> { $0(.success("ready")) }
        let value = try await future.value
        XCTAssertEqual(value, "ready")
    }

    func testValueThrowsTheFailure() async {
        let box = PromiseBox<Int, TestError>()
        let future = box.makeFuture()
        DispatchQueue.global().async { box.fulfil(.failure(TestError(5))) }
        do {
            _ = try await future.value
            XCTFail("expected a throw")
        } catch {
            XCTAssertEqual(error as? TestError, TestError(5))
        }
    }

    func testCancellingTheAwaitingTaskThrowsCancellationError() async {
        let future = Future<Int, TestError> { _ in }  // never fulfilled
        let waiter = Task { () -> String in
            do {
                return "value \(try await future.value)"
            } catch is CancellationError {
                return "cancelled"
            } catch {
                return "threw \(error)"
            }
        }
        waiter.cancel()
        let outcome = await waiter.value
        XCTAssertEqual(outcome, "cancelled")
    }

    func testManyTasksAwaitTheSameFuture() async {
        let box = PromiseBox<Int, Never>()
        let future = box.makeFuture()
        await withTaskGroup(of: Int.self) { group in
            for _ in 0..<20 {
                group.addTask { await future.value }
            }
            box.fulfil(.success(8))
            var sum = 0
            for await value in group { sum += value }
            XCTAssertEqual(sum, 160)
        }
    }
}
