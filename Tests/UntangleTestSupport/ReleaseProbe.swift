import Untangle
import UntangleSync

/// Where each ``ReleaseProbePublisher`` subscription was released: inside a library critical section (a broken
/// contract: its deinit may be user code) or outside every lock. Single-threaded tests only.
package final class ReleaseRecord {
    package enum Release: Equatable {
        case outsideLocks
        case underALibraryLock
    }

    package var releases: [Release] = []

    package init() {}
}

/// A publisher that hands its subscriber a subscription it keeps no reference to, then sends `completion`: the
/// subscriber holds the last reference, so the subscription's deinit shows where the subscriber lets it go.
package struct ReleaseProbePublisher<Output, Failure: Error>: Publisher {
    package let completion: Subscribers.Completion<Failure>
    package let record: ReleaseRecord

    package init(completion: Subscribers.Completion<Failure>, record: ReleaseRecord) {
        self.completion = completion
        self.record = record
    }

    package func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
        subscriber.receive(subscription: Probe(record: record))
        subscriber.receive(completion: completion)
    }

    private final class Probe: Subscription {
        let record: ReleaseRecord

        init(record: ReleaseRecord) {
            self.record = record
        }

        func request(_ demand: Subscribers.Demand) {}

        func cancel() {}

        deinit {
            record.releases.append(CalloutCheck.heldByCurrentThread == 0 ? .outsideLocks : .underALibraryLock)
        }
    }
}
