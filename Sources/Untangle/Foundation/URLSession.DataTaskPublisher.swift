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
    /// **Demand:** the task is created and resumed on the first request (of any size) and produces one value; as in
    /// Combine, each later request sends the task `resume()` again (which does nothing to a running task).
    /// **Thread safety:** `subscribe`, `request` and `cancel` may be called from any thread. The result is delivered on
    /// the session's delegate queue (the thread running the task's completion handler). After `cancel()` returns,
    /// nothing reaches the subscriber. As in Combine, a failure that is not a `URLError` (never expected from
    /// `URLSession`), or a completion with neither a response nor an error, is reported as `URLError(.unknown)`.
    public struct DataTaskPublisher: Publisher, Sendable {
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
            let subscription = DataTaskSubscription(downstream: subscriber, parent: self)
            subscription.emitter.start(subscription: subscription)
        }
    }
}

/// One subscriber's data task.
///
/// The lock guards the task's phase, the demand requested so far, and the references the subscription drops when it
/// ends (the publisher and the subscriber, which the reflection shows); the emitter serializes deliveries (the
/// completion handler may run on the session's queue while the subscriber is still in `receive(subscription:)`).
private final class DataTaskSubscription<Downstream: Subscriber>: Subscription, CustomStringConvertible,
    CustomReflectable, CustomPlaygroundDisplayConvertible, @unchecked Sendable
where Downstream.Input == URLSession.DataTaskPublisher.Output, Downstream.Failure == URLError {
    private enum Task {
        case idle
        /// The first request is creating the task, outside the lock.
        case starting
        case running(URLSessionDataTask)
        case ended
    }

    private struct State {
        var task = Task.idle
        var demand = Subscribers.Demand.none
        var parent: URLSession.DataTaskPublisher?
        var downstream: Downstream?

        /// Ends the subscription; returns what to release (or cancel) after unlocking.
        mutating func end() -> (Task, URLSession.DataTaskPublisher?, Downstream?) {
            defer {
                task = .ended
                demand = .none
                parent = nil
                downstream = nil
            }
            return (task, parent, downstream)
        }
    }

    private enum RequestAction {
        case start(URLSession.DataTaskPublisher)
        case resume(URLSessionDataTask)
        case nothing
    }

    let emitter: Emitter<Downstream>
    private let state: LockedBox<State>

    init(downstream: Downstream, parent: URLSession.DataTaskPublisher) {
        emitter = Emitter(downstream: downstream, policy: .unbounded)
        state = LockedBox(tracking: State(parent: parent, downstream: downstream))
    }

    // As in Combine, the first request creates the task and every request (re)sends `resume()` to it.
    func request(_ demand: Subscribers.Demand) {
        demand.preconditionNonZero()
        let action = state.withCriticalSection { state -> RequestAction in
            switch state.task {
            case .idle:
                guard let parent = state.parent else { return .nothing }
                state.demand += demand
                state.task = .starting
                return .start(parent)
            case .running(let task):
                state.demand += demand
                return .resume(task)
            case .starting:
                state.demand += demand
                return .nothing
            case .ended:
                return .nothing
            }
        }
        switch action {
        case .nothing:
            return
        case .start(let parent):
            emitter.request(demand)
            startTask(parent)
        case .resume(let task):
            emitter.request(demand)
            CalloutCheck.assertNoLockHeld("DataTaskPublisher resuming its task")
            task.resume()
        }
    }

    // The task is created and resumed with no lock held; a cancel that arrives meanwhile finds `.starting`, marks the
    // subscription ended, and the task is cancelled here right after it was created.
    private func startTask(_ parent: URLSession.DataTaskPublisher) {
        let handler = DataTaskHandler { [self] data, response, error in
            finish(data: data, response: response, error: error)
        }
        CalloutCheck.assertNoLockHeld("DataTaskPublisher creating its task")
        let dataTask = parent.session.dataTask(with: parent.request) { data, response, error in
            handler.body(data, response, error)
        }
        let keep = state.withCriticalSection { state -> Bool in
            guard case .starting = state.task else { return false }
            state.task = .running(dataTask)
            return true
        }
        if keep {
            dataTask.resume()
        } else {
            dataTask.cancel()
        }
    }

    // Only the first call of the completion handler counts; as in Combine, an error that is not a `URLError`, or
    // neither a response nor an error, fails with `URLError(.unknown)`.
    private func finish(data: Data?, response: URLResponse?, error: Error?) {
        let (task, parent, downstream) = state.withCriticalSection {
            state -> (Task, URLSession.DataTaskPublisher?, Downstream?) in
            guard case .running = state.task else { return (.ended, nil, nil) }
            return state.end()
        }
        guard case .running = task else { return }
        withExtendedLifetime((parent, downstream)) {}
        if let error {
            emitter.complete(.failure(Self.urlError(error)), order: .immediately)
        } else if let response {
            _ = emitter.offer((data: data ?? Data(), response: response))
            emitter.complete(.finished, order: .afterQueuedValues)
        } else {
            emitter.complete(.failure(URLError(.unknown)), order: .immediately)
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
        return URLError(.unknown)
    }

    // swift-corelibs-foundation crashes ("Trying to access a behaviour for a task that in not in the registry") when
    // `cancel()` races with the task's own completion: its cancel work runs after the completed task left the
    // session's registry. A task whose completion handler already ran is never cancelled here (it left `.running`),
    // which narrows that window; it cannot close it, since the race is inside URLSession (plain `task.cancel()` calls
    // hit it too). Asking the task for its `state` would not close it either, so (as Combine) it is not asked.
    func cancel() {
        _ = emitter.cancel()
        let (task, parent, downstream) = state.withCriticalSection { $0.end() }
        withExtendedLifetime((parent, downstream)) {}
        if case .running(let running) = task {
            CalloutCheck.assertNoLockHeld("DataTaskPublisher cancelling its task")
            running.cancel()
        }
    }

    var description: String { "DataTaskPublisher" }

    var customMirror: Mirror {
        let (task, downstream, parent, demand) = state.withCriticalSection {
            state -> (URLSessionDataTask?, Downstream?, URLSession.DataTaskPublisher?, Subscribers.Demand) in
            if case .running(let task) = state.task { return (task, state.downstream, state.parent, state.demand) }
            return (nil, state.downstream, state.parent, state.demand)
        }
        let children: [Mirror.Child] = [
            ("task", task as Any), ("downstream", downstream as Any), ("parent", parent as Any), ("demand", demand),
        ]
        return Mirror(self, children: children)
    }

    var playgroundDescription: Any { description }
}

// URLSession calls the completion handler on its delegate queue and wants a `Sendable` handler. The subscription is
// thread-safe (its emitter serializes deliveries), so the hand-over is unchecked; the wrapper also keeps the
// subscriber's generic type out of the `Sendable` block.
private struct DataTaskHandler: @unchecked Sendable {
    let body: (Data?, URLResponse?, Error?) -> Void
}
