import Untangle
import UntangleSync

extension Publisher {
    /// Passes everything through and reports each request once the upstream has it: `report` runs after the
    /// upstream's `request(_:)` returned, so a test that waits for the report may send to a subject at once, knowing
    /// the subject has the demand. (`handleEvents(receiveRequest:)` reports before forwarding: a test that sent on
    /// its report raced the request on its way up, and a `PassthroughSubject` dropped the value.)
    ///
    /// ```swift
    /// let (requests, requested) = AsyncStream.makeStream(of: Subscribers.Demand.self)
    /// let upstream = subject.reportingRequests { requested.yield($0) }
    /// ```
    package func reportingRequests(
        _ report: @escaping @Sendable (Subscribers.Demand) -> Void
    ) -> RequestReporting<Self> {
        RequestReporting(upstream: self, report: report)
    }
}

/// See ``Publisher/reportingRequests(_:)``.
package struct RequestReporting<Upstream: Publisher>: Publisher {
    package typealias Output = Upstream.Output
    package typealias Failure = Upstream.Failure

    let upstream: Upstream
    let report: @Sendable (Subscribers.Demand) -> Void

    package func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
        upstream.subscribe(RequestReportingSubscription(downstream: subscriber, report: report))
    }
}

private final class RequestReportingSubscription<Downstream: Subscriber>: Subscriber, Subscription,
    @unchecked Sendable
{
    typealias Input = Downstream.Input
    typealias Failure = Downstream.Failure

    let downstream: Downstream
    let report: @Sendable (Subscribers.Demand) -> Void
    let upstream = LockedBox<Subscription?>(nil)

    init(downstream: Downstream, report: @escaping @Sendable (Subscribers.Demand) -> Void) {
        self.downstream = downstream
        self.report = report
    }

    func receive(subscription: Subscription) {
        upstream.withLock { $0 = subscription }
        downstream.receive(subscription: self)
    }

    func receive(_ input: Input) -> Subscribers.Demand {
        downstream.receive(input)
    }

    func receive(completion: Subscribers.Completion<Failure>) {
        downstream.receive(completion: completion)
    }

    func request(_ demand: Subscribers.Demand) {
        upstream.withLock { $0 }?.request(demand)
        report(demand)
    }

    func cancel() {
        let subscription = upstream.withLock { state -> Subscription? in
            defer { state = nil }
            return state
        }
        subscription?.cancel()
    }
}
