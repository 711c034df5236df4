import Foundation
import Untangle
import UntangleExtras
import UntangleSync
import XCTest

final class UsingTests: XCTestCase {
    final class Resource: Cancellable, @unchecked Sendable {
        let releases = LockedBox(0)
        func cancel() { releases.withLock { $0 += 1 } }
        var released: Int { releases.withLock { $0 } }
    }

    func testResourceIsCreatedPerSubscriptionAndReleasedAfterCompletion() {
        let created = LockedBox<[Resource]>([])
        let publisher = AnyPublisher<Int, TestError>.using(
            {
                let resource = Resource()
                created.withLock { $0.append(resource) }
                return resource
            },
            { _ in [1, 2].publisher.setFailureType(to: TestError.self) })
        let first = Recorder<Int, TestError>()
        publisher.subscribe(first)
        XCTAssertEqual(first.events, [.subscription("Using"), .value(1), .value(2), .completion(.finished)])
        let second = Recorder<Int, TestError>()
        publisher.subscribe(second)
        let resources = created.withLock { $0 }
        XCTAssertEqual(resources.count, 2)
        XCTAssertEqual(resources.map(\.released), [1, 1])
        first.cancel()
        XCTAssertEqual(resources[0].released, 1, "cancel after completion must not release again")
    }

    func testResourceIsReleasedOnCancelExactlyOnceAndUpstreamCancelled() {
        let resource = Resource()
        let upstream = ManualPublisher<Int, TestError>()
        let recorder = Recorder<Int, TestError>(initialDemand: .max(1))
        Publishers.Using({ resource }, { _ in upstream }).subscribe(recorder)
        upstream.send(1)
        XCTAssertEqual(resource.released, 0)
        recorder.cancel()
        recorder.cancel()
        XCTAssertEqual(resource.released, 1)
        XCTAssertEqual(upstream.history, [.request(.max(1)), .cancel])
    }

    func testResourceIsReleasedAfterAFailure() {
        let resource = Resource()
        let recorder = Recorder<Int, TestError>()
        Publishers.Using({ resource }, { _ in Fail<Int, TestError>(error: TestError(2)) }).subscribe(recorder)
        XCTAssertEqual(recorder.events, [.subscription("Using"), .completion(.failure(TestError(2)))])
        XCTAssertEqual(resource.released, 1)
    }

    func testThePublisherIsBuiltFromTheResource() {
        final class Source: Cancellable, @unchecked Sendable {
            let values = [4, 5]
            func cancel() {}
        }
        let recorder = Recorder<Int, Never>()
        Publishers.Using({ Source() }, { $0.values.publisher }).subscribe(recorder)
        XCTAssertEqual(recorder.values, [4, 5])
    }
}
