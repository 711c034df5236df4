import Untangle
import UntangleSync

/// One group of a ``Untangle/Publisher/groupBy(_:)``: the values of the upstream whose key is ``key``.
///
/// A group accepts one subscriber. It buffers its values from the moment it is created until that subscriber
/// requests them, so nothing is lost between the outer publisher delivering the group and the subscription to it.
/// A second subscriber receives its subscription and `.finished` at once.
///
/// ```swift
/// let cancellable = messages.groupBy(\.room).sink { room in
///     room.sink { print(room.key, $0) }.store(in: &bag)
/// }
/// ```
///
/// **Demand:** the group's subscriber's demand; values beyond it wait in the group's buffer (unbounded, since the
/// upstream is asked for `.unlimited`).
/// **Thread safety:** may be subscribed, requested and cancelled from any thread; the subscriber receives one signal
/// at a time, never under a library lock.
public final class GroupedPublisher<Key: Hashable, Output, Failure: Error>: Publisher, @unchecked Sendable {
    // @unchecked Sendable: immutable properties; the emitter and the slot are thread-safe.

    /// The key shared by every value of this group.
    public let key: Key

    let emitter: Emitter<GroupTarget<Output, Failure>>
    private let slot: GroupSlot<Output, Failure>
    private let onSubscribe: () -> Void
    private let onCancel: () -> Void

    init(key: Key, onSubscribe: @escaping () -> Void, onCancel: @escaping () -> Void) {
        self.key = key
        let slot = GroupSlot<Output, Failure>()
        self.slot = slot
        emitter = Emitter(downstream: GroupTarget(slot: slot), policy: .unbounded)
        self.onSubscribe = onSubscribe
        self.onCancel = onCancel
    }

    /// Attaches the group's one subscriber: it receives the buffered values as it requests them, then live ones.
    public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
        guard slot.fill(AnySubscriber(subscriber)) else {
            subscriber.receive(subscription: Subscriptions.empty)
            subscriber.receive(completion: .finished)
            return
        }
        onSubscribe()
        emitter.start(subscription: GroupSubscription(group: self))
    }

    fileprivate func cancelled() {
        if emitter.cancel() {
            withExtendedLifetime(slot.empty()) {}
            onCancel()
        }
    }

    /// The subscription a group's subscriber receives.
    private final class GroupSubscription: Subscription, CustomStringConvertible, @unchecked Sendable {
        let group: GroupedPublisher

        init(group: GroupedPublisher) {
            self.group = group
        }

        func request(_ demand: Subscribers.Demand) {
            demand.preconditionNonZero()
            group.emitter.request(demand)
        }

        func cancel() {
            group.cancelled()
        }

        var description: String { "GroupBy.Group" }
    }
}
