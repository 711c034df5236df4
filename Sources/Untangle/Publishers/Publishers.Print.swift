/// Where `print` writes: a copy of the user's stream (a value type, so each subscription has its own) or standard
/// output.
import UntangleSync

extension Publisher {
    /// Prints log messages for all publishing events.
    ///
    /// Messages look like Combine's: `receive subscription: (Sequence)`, `request unlimited`,
    /// `request max: (1)`, `request max: (1) (synchronous)` (demand returned from `receive`), `receive value: (1)`,
    /// `receive finished`, `receive error: (...)`, `receive cancel`, each behind `prefix: ` when a prefix is given.
    ///
    /// ```swift
    /// let cancellable = [1, 2].publisher.print("numbers").sink { _ in }
    /// // numbers: receive subscription: (Sequence)
    /// // numbers: request unlimited
    /// // numbers: receive value: (1) ...
    /// ```
    ///
    /// **Demand:** passed through unchanged.
    /// **Thread safety:** each message is written on the thread of its event, with no lock held; writes to a shared
    /// `stream` from concurrent requests and deliveries are serialized by this operator's own lock-free design only
    /// as far as the stream itself is thread-safe (standard output is).
    public func print(_ prefix: String = "", to stream: TextOutputStream? = nil) -> Publishers.Print<Self> {
        Publishers.Print(upstream: self, prefix: prefix, to: stream)
    }
}

extension Publishers {
    /// A publisher that prints log messages for all publishing events, optionally prefixed with a given string.
    ///
    /// **Demand:** passed through unchanged.
    /// **Thread safety:** see ``Publisher/print(_:to:)``.
    public struct Print<Upstream: Publisher>: Publisher {
        /// The kind of values published by this publisher.
        public typealias Output = Upstream.Output
        /// The kind of errors this publisher might publish.
        public typealias Failure = Upstream.Failure

        /// A string with which to prefix all log messages.
        public let prefix: String
        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream
        /// The stream to write to, or nil for standard output.
        public let stream: TextOutputStream?

        /// Creates a publisher that prints log messages for all publishing events.
        public init(upstream: Upstream, prefix: String, to stream: TextOutputStream? = nil) {
            self.upstream = upstream
            self.prefix = prefix
            self.stream = stream
        }

        /// Attaches the subscriber.
        public func receive<S: Subscriber>(subscriber: S)
        where Upstream.Failure == S.Failure, Upstream.Output == S.Input {
            let log = PrintLog(prefix: prefix, stream: stream)
            upstream.subscribe(
                EventsSubscription(
                    downstream: subscriber, name: "Print",
                    handlers: EventHandlers(
                        subscription: { log.write("receive subscription: (\($0))") },
                        output: { log.write("receive value: (\($0))") },
                        completion: {
                            switch $0 {
                            case .finished: log.write("receive finished")
                            case .failure(let error): log.write("receive error: (\(error))")
                            }
                        },
                        cancel: { log.write("receive cancel") },
                        request: { log.write(PrintLog.describe($0)) },
                        returnedDemand: { log.write(PrintLog.describe($0) + " (synchronous)") })))
        }
    }
}

private final class PrintLog: @unchecked Sendable {
    // Events of one subscription are serialized except request/cancel, which may race a delivery; the stream is
    // guarded so those writes do not interleave inside this operator.
    private let lock = Lock()
    private var stream: TextOutputStream?
    private let prefix: String

    init(prefix: String, stream: TextOutputStream?) {
        self.prefix = prefix.isEmpty ? "" : prefix + ": "
        self.stream = stream
    }

    static func describe(_ demand: Subscribers.Demand) -> String {
        demand.max.map { "request max: (\($0))" } ?? "request unlimited"
    }

    // Writing to a user's TextOutputStream is a callout, but `write` is documented to be a plain append; holding the
    // lock keeps lines whole when a request on one thread races a delivery on another.
    func write(_ message: String) {
        let line = prefix + message + "\n"
        if stream == nil {
            Swift.print(line, terminator: "")
            return
        }
        lock.withLock { stream!.write(line) }
    }
}
