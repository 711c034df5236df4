import UntangleSync

extension Publisher {
    /// Prints log messages for all publishing events.
    ///
    /// Messages look like Combine's: `receive subscription: ([1, 2])`, `request unlimited`,
    /// `request max: (1)`, `request max: (1) (synchronous)` (the demand returned from each `receive`, also `max: (0)`), `receive value: (1)`,
    /// `receive finished`, `receive error: (...)`, `receive cancel`, each behind `prefix: ` when a prefix is given.
    ///
    /// ```swift
    /// let cancellable = [1, 2].publisher.print("numbers").sink { _ in }
    /// // numbers: receive subscription: ([1, 2])
    /// // numbers: request unlimited
    /// // numbers: receive value: (1) ...
    /// ```
    ///
    /// Each line is written with `Swift.print(_:to:)` into a copy of `stream`, as in Combine: give a class stream
    /// (a value-type stream's copy is discarded after each line).
    ///
    /// **Demand:** passed through unchanged (`request(.none)` is forwarded).
    /// **Thread safety:** each message is written on the thread of its event, with no lock held. A request or cancel
    /// on one thread may write while a delivery writes on another: the lines stay whole as far as the stream keeps
    /// them whole (standard output does). After the completion or `cancel()` the downstream is released and hears
    /// nothing more; events that still arrive from the upstream are logged.
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
                        returnedDemand: { log.write(PrintLog.describe($0) + " (synchronous)") }),
                    lifetime: .forever))
        }
    }
}

// Each line is written with `Swift.print(_:to:)` into a copy of the user's stream, as Combine does: a class stream
// (the usual kind) receives every line; a value-type stream's copy is discarded. Nothing here is shared and mutable,
// so no lock is needed, and the write (user code) never runs under one. Lines written from several threads at once
// are only as whole as the stream keeps them (standard output keeps each `print` whole).
private struct PrintLog: @unchecked Sendable {
    private let stream: TextOutputStream?
    private let prefix: String

    init(prefix: String, stream: TextOutputStream?) {
        self.prefix = prefix.isEmpty ? "" : prefix + ": "
        self.stream = stream
    }

    static func describe(_ demand: Subscribers.Demand) -> String {
        demand.max.map { "request max: (\($0))" } ?? "request unlimited"
    }

    func write(_ message: String) {
        CalloutCheck.assertNoLockHeld("print writing a line")
        guard let stream else {
            Swift.print(prefix + message)
            return
        }
        var target = StreamCopy(stream: stream)
        Swift.print(prefix + message, to: &target)
    }
}

/// A concrete stream around the user's existential one, for `Swift.print(_:to:)`.
private struct StreamCopy: TextOutputStream {
    var stream: TextOutputStream

    mutating func write(_ string: String) {
        stream.write(string)
    }
}
