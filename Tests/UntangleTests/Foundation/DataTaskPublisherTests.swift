import Foundation
import Untangle
import UntangleSync
import XCTest

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Every test talks to a server on 127.0.0.1, never to the internet.
final class DataTaskPublisherTests: XCTestCase {
    private var server: LoopbackHTTPServer!
    private var session: URLSession!

    override func setUpWithError() throws {
        server = try LoopbackHTTPServer { method, path, body in
            switch path {
            case "/hold": return nil
            case "/missing": return .init(status: 404, body: "no")
            case "/echo": return .init(body: "\(method) \(body)")
            default: return .init(body: "hello from \(path)")
            }
        }
        let configuration = URLSessionConfiguration.ephemeral
        configuration.connectionProxyDictionary = [:]
        session = URLSession(configuration: configuration)
    }

    override func tearDown() {
        // Every test waits for its tasks to end first: cancelling a task while it completes (here, while the server
        // stops) crashes inside swift-corelibs-foundation.
        session.finishTasksAndInvalidate()
        server.stop()
    }

    /// Subscribes and waits (30 s watchdog) until the recorder has its completion; returns the recorder.
    private func run(_ publisher: URLSession.DataTaskPublisher) -> Recorder<
        URLSession.DataTaskPublisher.Output, URLError
    > {
        let recorder = Recorder<URLSession.DataTaskPublisher.Output, URLError>()
        publisher.subscribe(recorder)
        XCTAssertTrue(server.wait { _ in !recorder.completions.isEmpty }, "watchdog: no completion")
        return recorder
    }

    func testDataTaskForURLPublishesDataAndResponseThenFinishes() {
        let recorder = run(session.dataTaskPublisher(for: server.url("/hello")))
        XCTAssertEqual(recorder.values.count, 1)
        let output = recorder.values.first
        XCTAssertEqual(output.map { String(decoding: $0.data, as: UTF8.self) }, "hello from /hello")
        XCTAssertEqual((output?.response as? HTTPURLResponse)?.statusCode, 200)
        XCTAssertEqual(output?.response.url, server.url("/hello"))
        XCTAssertEqual(recorder.completions.count, 1)
        if case .failure(let error) = recorder.completions.first { XCTFail("unexpected \(error)") }
        XCTAssertEqual(recorder.events.count, 3)
    }

    func testDataTaskForRequestSendsTheRequestAsGiven() {
        var request = URLRequest(url: server.url("/echo"))
        request.httpMethod = "POST"
        request.httpBody = Data("ping".utf8)
        let publisher = session.dataTaskPublisher(for: request)
        XCTAssertEqual(publisher.request.httpMethod, "POST")
        XCTAssertTrue(publisher.session === session)
        let recorder = run(publisher)
        XCTAssertEqual(recorder.values.map { String(decoding: $0.data, as: UTF8.self) }, ["POST ping"])
    }

    func testAnHTTPErrorStatusIsAValueNotAFailure() {
        let recorder = run(session.dataTaskPublisher(for: server.url("/missing")))
        XCTAssertEqual(recorder.values.compactMap { ($0.response as? HTTPURLResponse)?.statusCode }, [404])
    }

    func testConnectionRefusedFailsWithAURLError() throws {
        // A port that was just closed: nothing listens there.
        let closed = try LoopbackHTTPServer { _, _, _ in nil }
        let url = closed.url("/nothing")
        closed.stop()
        let recorder = run(session.dataTaskPublisher(for: url))
        XCTAssertEqual(recorder.values.count, 0)
        guard case .failure(let error) = recorder.completions.first else {
            return XCTFail("expected a failure, got \(recorder.events)")
        }
        XCTAssertNotEqual(error.code, .unknown, "a URLSession error code: \(error)")
    }

    func testTheTaskStartsOnlyOnTheFirstRequest() {
        let recorder = Recorder<URLSession.DataTaskPublisher.Output, URLError>(initialDemand: nil)
        session.dataTaskPublisher(for: server.url("/lazy")).subscribe(recorder)
        // Another request's full round trip: the lazy one, had it started, would most likely have arrived meanwhile.
        _ = run(session.dataTaskPublisher(for: server.url("/other")))
        XCTAssertFalse(server.requests.contains("GET /lazy"))
        let done = expectation(description: "lazy completes")
        let handled = session.dataTaskPublisher(for: server.url("/lazy"))
            .handleEvents(receiveCompletion: { _ in done.fulfill() })
        let late = Recorder<URLSession.DataTaskPublisher.Output, URLError>(initialDemand: nil)
        handled.subscribe(late)
        late.request(.max(1))
        wait(for: [done], timeout: 30)
        XCTAssertEqual(late.values.count, 1)
        recorder.cancel()
    }

    func testCancelCancelsTheRunningTask() {
        let recorder = Recorder<URLSession.DataTaskPublisher.Output, URLError>()
        session.dataTaskPublisher(for: server.url("/hold")).subscribe(recorder)
        XCTAssertTrue(server.wait { $0.requests.contains("GET /hold") }, "watchdog: request did not arrive")
        recorder.cancel()
        XCTAssertTrue(server.wait { $0.heldConnectionsClosed == 1 }, "watchdog: the task was not cancelled")
        XCTAssertEqual(recorder.events.count, 1, "only the subscription: nothing after cancel")
    }

    func testCancelBeforeTheFirstRequestNeverStartsATask() {
        let recorder = Recorder<URLSession.DataTaskPublisher.Output, URLError>(initialDemand: nil)
        session.dataTaskPublisher(for: server.url("/never")).subscribe(recorder)
        recorder.cancel()
        recorder.subscription?.request(.max(1))
        _ = run(session.dataTaskPublisher(for: server.url("/other")))
        XCTAssertFalse(server.requests.contains("GET /never"))
    }

    func testSubscriberIsReleasedAfterCompletion() {
        let done = expectation(description: "done")
        weak var weakRecorder: Recorder<URLSession.DataTaskPublisher.Output, URLError>?
        do {
            let recorder = Recorder<URLSession.DataTaskPublisher.Output, URLError>()
            weakRecorder = recorder
            session.dataTaskPublisher(for: server.url("/a"))
                .handleEvents(receiveCompletion: { _ in done.fulfill() })
                .subscribe(recorder)
        }
        wait(for: [done], timeout: 30)
        // The recorder holds its subscription; the subscription must not hold the recorder after completing.
        XCTAssertTrue(server.wait { _ in weakRecorder == nil }, "the completed subscription released its subscriber")
    }

    func testSubscriberIsReleasedAfterCancel() {
        weak var weakRecorder: Recorder<URLSession.DataTaskPublisher.Output, URLError>?
        do {
            let recorder = Recorder<URLSession.DataTaskPublisher.Output, URLError>()
            weakRecorder = recorder
            session.dataTaskPublisher(for: server.url("/hold")).subscribe(recorder)
            XCTAssertTrue(server.wait { $0.requests.contains("GET /hold") })
            recorder.cancel()
            XCTAssertTrue(server.wait { $0.heldConnectionsClosed == 1 })
        }
        XCTAssertNil(weakRecorder)
    }
}

/// Many data tasks at once, subscribed and cancelled from several threads.
final class DataTaskPublisherConcurrencyTests: XCTestCase {
    func testManyConcurrentTasksAllComplete() throws {
        let server = try LoopbackHTTPServer { _, path, _ in .init(body: path) }
        defer { server.stop() }
        let session = URLSession(configuration: .ephemeral)
        defer { session.finishTasksAndInvalidate() }
        let results = LockedBox<[String]>([])
        let done = DispatchGroup()
        let bag = LockedBox<[AnyCancellable]>([])
        runConcurrently(threads: 4) { thread in
            for i in 0..<5 {
                done.enter()
                let cancellable = session.dataTaskPublisher(for: server.url("/\(thread)-\(i)"))
                    .sink(
                        receiveCompletion: { _ in done.leave() },
                        receiveValue: { output in
                            results.withLock { $0.append(String(decoding: output.data, as: UTF8.self)) }
                        })
                bag.withLock { $0.append(cancellable) }
            }
        }
        XCTAssertEqual(done.wait(timeout: .now() + 60), .success, "watchdog: tasks did not complete")
        let expected = (0..<4).flatMap { thread in (0..<5).map { "/\(thread)-\($0)" } }
        XCTAssertEqual(results.withLock { $0 }.sorted(), expected.sorted())
        bag.withLock { $0.removeAll() }
    }

    func testConcurrentCancelsOfAHeldRequestCancelTheTaskOnce() throws {
        // The server never answers /hold, so cancel() never races the task's own completion: that race crashes inside
        // swift-corelibs-foundation's URLSession whoever calls cancel (see DataTaskSubscription.cancel()).
        let server = try LoopbackHTTPServer { _, _, _ in nil }
        defer { server.stop() }
        let session = URLSession(configuration: .ephemeral)
        defer { session.finishTasksAndInvalidate() }
        for round in 1...10 {
            let recorder = Recorder<URLSession.DataTaskPublisher.Output, URLError>()
            session.dataTaskPublisher(for: server.url("/hold")).subscribe(recorder)
            XCTAssertTrue(server.wait { $0.requests.count == round }, "watchdog: request \(round) did not arrive")
            runConcurrently(threads: 3) { _ in recorder.cancel() }
            XCTAssertTrue(server.wait { $0.heldConnectionsClosed == round }, "watchdog: task \(round) not cancelled")
            XCTAssertEqual(recorder.events.count, 1, "nothing after the subscription")
        }
    }
}

/// A data task that only records `resume()` and `cancel()`.
private final class RecordingDataTask: URLSessionDataTask, @unchecked Sendable {
    let calls = LockedBox<[String]>([])
    override func resume() { calls.withLock { $0.append("resume") } }
    override func cancel() { calls.withLock { $0.append("cancel") } }
}

/// A session whose data tasks never touch the network: the test completes them by hand.
private final class HandDrivenSession: URLSession, @unchecked Sendable {
    let task = RecordingDataTask()
    let handlers = LockedBox<[(Data?, URLResponse?, Error?) -> Void]>([])

    override func dataTask(
        with request: URLRequest, completionHandler: @escaping @Sendable (Data?, URLResponse?, Error?) -> Void
    ) -> URLSessionDataTask {
        handlers.withLock { $0.append(completionHandler) }
        return task
    }

    func complete(_ data: Data?, _ response: URLResponse?, _ error: Error?) {
        for handler in handlers.withLock({ $0 }) { handler(data, response, error) }
    }
}

extension DataTaskPublisherTests {
    private struct Unrelated: Error {}

    private func handDriven(
        _ complete: (HandDrivenSession) -> Void
    ) -> [Subscribers.Completion<URLError>] {
        let session = HandDrivenSession(configuration: .ephemeral)
        let recorder = Recorder<URLSession.DataTaskPublisher.Output, URLError>(initialDemand: .max(1))
        session.dataTaskPublisher(for: URL(string: "http://127.0.0.1/x")!).subscribe(recorder)
        complete(session)
        return recorder.completions
    }

    func testNoResponseAndNoErrorOrAnErrorThatIsNotAURLErrorFailWithAPlainUnknownURLError() {
        XCTAssertEqual(handDriven { $0.complete(Data("x".utf8), nil, nil) }, [.failure(URLError(.unknown))])
        XCTAssertEqual(handDriven { $0.complete(nil, nil, Unrelated()) }, [.failure(URLError(.unknown))])
    }

    func testOnlyTheFirstCallOfTheCompletionHandlerCounts() {
        let response = URLResponse(
            url: URL(string: "http://127.0.0.1/x")!, mimeType: nil, expectedContentLength: 0, textEncodingName: nil)
        let completions = handDriven { session in
            session.complete(nil, response, nil)
            session.complete(nil, nil, URLError(.timedOut))
        }
        XCTAssertEqual(completions, [.finished])
    }

    func testEveryRequestResumesTheTaskAndCancelCancelsItOnce() {
        let session = HandDrivenSession(configuration: .ephemeral)
        let recorder = Recorder<URLSession.DataTaskPublisher.Output, URLError>(initialDemand: nil)
        session.dataTaskPublisher(for: URL(string: "http://127.0.0.1/x")!).subscribe(recorder)
        XCTAssertEqual(session.task.calls.withLock { $0 }, [], "no task before the first request")
        recorder.request(.max(2))
        recorder.request(.max(1))
        recorder.cancel()
        recorder.request(.max(1))
        recorder.cancel()
        XCTAssertEqual(session.task.calls.withLock { $0 }, ["resume", "resume", "cancel"])
        XCTAssertEqual(session.handlers.withLock { $0.count }, 1, "one task per subscription")
    }

    func testMirrorShowsTaskDownstreamParentAndDemand() throws {
        let session = HandDrivenSession(configuration: .ephemeral)
        let recorder = Recorder<URLSession.DataTaskPublisher.Output, URLError>(initialDemand: nil)
        session.dataTaskPublisher(for: URL(string: "http://127.0.0.1/x")!).subscribe(recorder)
        let subscription = try XCTUnwrap(recorder.subscription)
        XCTAssertEqual(
            (subscription as? CustomPlaygroundDisplayConvertible)?.playgroundDescription as? String,
            "DataTaskPublisher")
        let mirror = try XCTUnwrap((subscription as? CustomReflectable)?.customMirror)
        XCTAssertEqual(mirror.children.map(\.label), ["task", "downstream", "parent", "demand"])
        XCTAssertEqual(mirror.children.map { String(describing: $0.value) }.last, "max(0)")
        recorder.cancel()
    }
}
