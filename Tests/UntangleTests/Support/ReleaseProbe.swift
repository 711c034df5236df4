import Untangle
import UntangleSync

/// Where each ``ReleaseProbePublisher`` subscription was released: inside a library critical section (a broken
/// contract: its deinit may be user code) or outside every lock. Single-threaded tests only.
final class ReleaseRecord {
    enum Release: Equatable {
        case outsideLocks
        case underALibraryLock
    }

    var releases: [Release] = []
}

/// A publisher that hands its subscriber a subscription it keeps no reference to, then sends `completion`: the
/// subscriber holds the last reference, so the subscription's deinit shows where the subscriber lets it go.
struct ReleaseProbePublisher<Output, Failure: Error>: Publisher {
    let completion: Subscribers.Completion<Failure>
    let record: ReleaseRecord

    func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
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
