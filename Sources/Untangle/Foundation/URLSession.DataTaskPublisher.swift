import Foundation
import UntangleSync

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension URLSession {
    /// Returns a publisher that wraps a URL session data task for a given URL.
    ///
    /// The publisher publishes data when the task completes, or terminates if the task fails with an error.
    ///
    /// ```swift
    /// let cancellable = URLSession.shared.dataTaskPublisher(for: URL(string: "https://example.com")!)
    ///     .map(\.data)
    ///     .sink(receiveCompletion: { print($0) }, receiveValue: { print($0.count, "bytes") })
    /// ```
    ///
    /// - Parameter url: The URL for which to create a data task.
    /// - Returns: A publisher that wraps a data task for the URL.
    ///
    /// **Demand:** see ``URLSession/DataTaskPublisher``.
    /// **Thread safety:** see ``URLSession/DataTaskPublisher``.
    public func dataTaskPublisher(for url: URL) -> URLSession.DataTaskPublisher {
        DataTaskPublisher(request: URLRequest(url: url), session: self)
    }

    /// Returns a publisher that wraps a URL session data task for a given URL request.
    ///
    /// The publisher publishes data when the task completes, or terminates if the task fails with an error.
    ///
    /// ```swift
    /// var request = URLRequest(url: URL(string: "https://example.com/api")!)
    /// request.httpMethod = "POST"
    /// let publisher = URLSession.shared.dataTaskPublisher(for: request)
    /// ```
    ///
    /// - Parameter request: The URL request for which to create a data task.
    /// - Returns: A publisher that wraps a data task for the URL request.
    ///
    /// **Demand:** see ``URLSession/DataTaskPublisher``.
    /// **Thread safety:** see ``URLSession/DataTaskPublisher``.
    public func dataTaskPublisher(for request: URLRequest) -> URLSession.DataTaskPublisher {
        DataTaskPublisher(request: request, session: self)
    }

    /// A publisher that delivers the results of performing URL session data tasks.
    ///
    /// Each subscription makes its own data task, created and resumed on the subscriber's first request. When the
    /// task completes, the subscriber receives `(data, response)` then `.finished`, or a `URLError`. Cancelling the
    /// subscription cancels the task.
    ///
    /// ```swift
    /// let publisher = URLSession.DataTaskPublisher(request: URLRequest(url: url), session: .shared)
    /// let cancellable = publisher
    ///     .tryMap { data, response in
    ///         guard (response as? HTTPURLResponse)?.statusCode == 200 else { throw URLError(.badServerResponse) }
    ///         return data
    ///     }
    ///     .sink(receiveCompletion: { print($0) }, receiveValue: { print($0) })
    /// ```
    ///
    /// **Demand:** the task starts on the first request (of any size) and produces one value.
    /// **Thread safety:** `subscribe`, `request` and `cancel` may be called from any thread. The result is delivered on
    /// the session's delegate queue (the thread running the task's completion handler). After `cancel()` returns,
    /// nothing reaches the subscriber. A failure that is not a `URLError` (never expected from `URLSession`) is
    /// reported as `URLError(.unknown)` carrying it under `NSUnderlyingErrorKey`.
    public struct DataTaskPublisher: Publisher {
        /// The kind of values published by this publisher.
        public typealias Output = (data: Data, response: URLResponse)

        /// The kind of errors this publisher might publish.
        public typealias Failure = URLError

        /// The URL request performed by the data task associated with this publisher.
        public let request: URLRequest

        /// The URL session that performs the data task associated with this publisher.
        public let session: URLSession

        /// Creates a data task publisher from the provided URL request and URL session.
        ///
        /// - Parameters:
        ///   - request: The URL request from which to create a URL session data task.
        ///   - session: The URL session to create the data task.
        public init(request: URLRequest, session: URLSession) {
            self.request = request
            self.session = session
        }

        /// Attaches a subscriber; its data task starts on its first request.
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == URLError {
            let subscription = DataTaskSubscription(downstream: subscriber, request: request, session: session)
            subscription.emitter.start(subscription: subscription)
        }
    }
}

/// One subscriber's data task.
private final class DataTaskSubscription<Downstream: Subscriber>: Subscription, CustomStringConvertible,
    @unchecked Sendable
where Downstream.Input == URLSession.DataTaskPublisher.Output, Downstream.Failure == URLError {
    private enum Task {
        case idle
        case starting
        case running(URLSessionDataTask)
        case ended
    }

    let emitter: Emitter<Downstream>
    private let request: URLRequest
    private let session: URLSession
    private let task = LockedBox(tracking: Task.idle)

    init(downstream: Downstream, request: URLRequest, session: URLSession) {
        emitter = Emitter(downstream: downstream, policy: .unbounded)
        self.request = request
        self.session = session
    }

    func request(_ demand: Subscribers.Demand) {
        demand.preconditionNonZero()
        emitter.request(demand)
        let start = task.withCriticalSection { task -> Bool in
            guard case .idle = task else { return false }
            task = .starting
            return true
        }
        if start { startTask() }
    }

    // The task is created and resumed with no lock held; a cancel that arrives meanwhile finds `.starting`, marks the
    // subscription ended, and the task is cancelled here right after it was created.
    private func startTask() {
        let handler = DataTaskHandler { [self] data, response, error in
            finish(data: data, response: response, error: error)
        }
        let dataTask = session.dataTask(with: request) { data, response, error in
            handler.body(data, response, error)
        }
        let keep = task.withCriticalSection { task -> Bool in
            guard case .starting = task else { return false }
            task = .running(dataTask)
            return true
        }
        if keep {
            dataTask.resume()
        } else {
            dataTask.cancel()
        }
    }

    private func finish(data: Data?, response: URLResponse?, error: Error?) {
        let ended = task.withCriticalSection { task -> URLSessionDataTask? in
            defer { task = .ended }
            if case .running(let dataTask) = task { return dataTask }
            return nil
        }
        withExtendedLifetime(ended) {}
        if let error {
            emitter.complete(.failure(Self.urlError(error)), order: .immediately)
        } else if let response {
            emitter.offer((data: data ?? Data(), response: response))
            emitter.complete(.finished, order: .afterQueuedValues)
        } else {
            emitter.complete(.failure(URLError(.badServerResponse)), order: .immediately)
        }
    }

    private static func urlError(_ error: Error) -> URLError {
        if let urlError = error as? URLError { return urlError }
        let nsError = error as NSError
        if nsError.domain == NSURLErrorDomain {
            // `URLError.Code(rawValue:)` is failable in swift-corelibs-foundation and not on Darwin.
            let code: URLError.Code? = URLError.Code(rawValue: nsError.code)
            return URLError(code ?? .unknown, userInfo: nsError.userInfo)
        }
        return URLError(.unknown, userInfo: [NSUnderlyingErrorKey: error])
    }

    func cancel() {
        emitter.cancel()
        let running = task.withCriticalSection { task -> URLSessionDataTask? in
            defer { task = .ended }
            if case .running(let dataTask) = task { return dataTask }
            return nil
        }
        // swift-corelibs-foundation crashes ("Trying to access a behaviour for a task that in not in the registry")
        // when `cancel()` races with the task's own completion: its cancel work runs after the completed task left the
        // session's registry. Skipping tasks that already left `.running` narrows that window; it cannot close it,
        // since the race is inside URLSession (plain `task.cancel()` calls hit it too).
        if let running, running.state == .running || running.state == .suspended {
            running.cancel()
        }
    }

    var description: String { "DataTaskPublisher" }
}

// URLSession calls the completion handler on its delegate queue and wants a `Sendable` handler. The subscription is
// thread-safe (its emitter serializes deliveries), so the hand-over is unchecked; the wrapper also keeps the
// subscriber's generic type out of the `Sendable` block.
private struct DataTaskHandler: @unchecked Sendable {
    let body: (Data?, URLResponse?, Error?) -> Void
}
