import Foundation
import UntangleSync

extension NotificationCenter {
    /// Returns a publisher that emits events when broadcasting notifications.
    ///
    /// ```swift
    /// let cancellable = NotificationCenter.default
    ///     .publisher(for: .NSSystemTimeZoneDidChange)
    ///     .sink { notification in print(notification.name) }
    /// ```
    ///
    /// - Parameters:
    ///   - name: The name of the notification to publish.
    ///   - object: The object posting the named notification. If `nil`, the publisher emits elements for any object
    ///     producing a notification with the given name.
    /// - Returns: A publisher that emits events when broadcasting notifications.
    ///
    /// **Demand:** see ``NotificationCenter/Publisher``.
    /// **Thread safety:** see ``NotificationCenter/Publisher``.
    public func publisher(for name: Notification.Name, object: AnyObject? = nil) -> NotificationCenter.Publisher {
        Publisher(center: self, name: name, object: object)
    }

    /// A publisher that emits elements when broadcasting notifications.
    ///
    /// Each subscriber gets its own observer in the center, added when it subscribes and removed when it cancels.
    /// A notification posted while the subscriber has no demand is dropped for it; the publisher never completes.
    ///
    /// ```swift
    /// let publisher = NotificationCenter.Publisher(center: .default, name: .init("Ping"))
    /// let cancellable = publisher.sink { print($0.name.rawValue) }
    /// NotificationCenter.default.post(name: .init("Ping"), object: nil)   // prints "Ping"
    /// ```
    ///
    /// **Demand:** one notification per unit of demand; notifications beyond demand are dropped.
    /// **Thread safety:** a notification is delivered on the thread that posts it (or the thread already delivering
    /// to that subscriber: serialized). `subscribe`, `request` and `cancel` may be called from any thread; after
    /// `cancel()` returns, no notification reaches the subscriber.
    public struct Publisher: Untangle.Publisher {
        /// The kind of values published by this publisher.
        public typealias Output = Notification

        /// The kind of errors this publisher might publish.
        public typealias Failure = Never

        /// The notification center this publisher uses as a source.
        public let center: NotificationCenter

        /// The name of notifications published by this publisher.
        public let name: Notification.Name

        /// The object posting the named notfication.
        public let object: AnyObject?

        /// Creates a publisher that emits events when broadcasting notifications.
        ///
        /// - Parameters:
        ///   - center: The notification center to publish notifications for.
        ///   - name: The name of the notification to publish.
        ///   - object: The object posting the named notfication. If `nil`, the publisher emits elements for any object
        ///     producing a notification with the given name.
        public init(center: NotificationCenter, name: Notification.Name, object: AnyObject? = nil) {
            self.center = center
            self.name = name
            self.object = object
        }

        /// Adds an observer for this subscriber and delivers notifications as demand allows.
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Notification, S.Failure == Never {
            let subscription = NotificationSubscription(downstream: subscriber, center: center)
            subscription.emitter.start(subscription: subscription)
            subscription.observe(name: name, object: object)
        }
    }
}

extension NotificationCenter.Publisher: Equatable {
    /// Two notification publishers are equal when they use the same center, name and (identical) object.
    public static func == (lhs: NotificationCenter.Publisher, rhs: NotificationCenter.Publisher) -> Bool {
        lhs.center === rhs.center && lhs.name == rhs.name && lhs.object === rhs.object
    }
}

/// One subscriber's observer in a notification center.
private final class NotificationSubscription<Downstream: Subscriber>: Subscription, CustomStringConvertible,
    @unchecked Sendable
where Downstream.Input == Notification, Downstream.Failure == Never {
    private enum Observation {
        case pending
        case observing(NSObjectProtocol)
        case cancelled
    }

    let emitter: Emitter<Downstream>
    private let center: NotificationCenter
    private let observation = LockedBox(tracking: Observation.pending)

    init(downstream: Downstream, center: NotificationCenter) {
        emitter = Emitter(downstream: downstream, policy: .dropWithoutDemand)
        self.center = center
    }

    func observe(name: Notification.Name, object: AnyObject?) {
        // The block keeps this subscription until the observer is removed (on cancel), like Apple's.
        let handler = NotificationHandler { [self] notification in emitter.offer(notification) }
        let token = center.addObserver(forName: name, object: object, queue: nil) { notification in
            handler.body(notification)
        }
        // A cancel that came first (from inside receive(subscription:) or another thread) removes the observer now.
        let keep = observation.withCriticalSection { observation -> Bool in
            guard case .pending = observation else { return false }
            observation = .observing(token)
            return true
        }
        if !keep {
            center.removeObserver(token)
        }
    }

    func request(_ demand: Subscribers.Demand) {
        demand.preconditionNonZero()
        emitter.request(demand)
    }

    func cancel() {
        emitter.cancel()
        let token = observation.withCriticalSection { observation -> NSObjectProtocol? in
            defer { observation = .cancelled }
            if case .observing(let token) = observation { return token }
            return nil
        }
        if let token {
            center.removeObserver(token)
        }
    }

    var description: String { "NotificationCenter Observer" }
}

// The center calls its observer blocks on the posting thread, and its API wants a `Sendable` block. The subscription
// is thread-safe (its emitter serializes deliveries), so handing it to the center is unchecked here; the wrapper also
// keeps the subscriber's generic type out of the `Sendable` block.
private struct NotificationHandler: @unchecked Sendable {
    let body: (Notification) -> Void
}
