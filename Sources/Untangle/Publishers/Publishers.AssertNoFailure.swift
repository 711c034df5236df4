extension Publisher {
    /// Raises a fatal error when its upstream publisher fails, and otherwise republishes all received input.
    ///
    /// Use it where a failure would be a programming error; the message names `prefix`, the error, and the place.
    ///
    /// ```swift
    /// let cancellable = loadBundledConfig()
    ///     .assertNoFailure("bundled config")
    ///     .sink { apply($0) }
    /// ```
    ///
    /// **Demand:** passed through unchanged.
    /// **Thread safety:** as the upstream; a failure stops the program on the thread that delivered it.
    public func assertNoFailure(_ prefix: String = "", file: StaticString = #file, line: UInt = #line)
        -> Publishers.AssertNoFailure<Self>
    {
        Publishers.AssertNoFailure(upstream: self, prefix: prefix, file: file, line: line)
    }
}

extension Publishers {
    /// A publisher that raises a fatal error upon receiving any failure, and otherwise republishes all received
    /// input.
    ///
    /// **Demand:** passed through unchanged.
    /// **Thread safety:** see ``Publisher/assertNoFailure(_:file:line:)``.
    public struct AssertNoFailure<Upstream: Publisher>: Publisher {
        /// The kind of values published by this publisher.
        public typealias Output = Upstream.Output
        /// This publisher never fails: it stops the program instead.
        public typealias Failure = Never

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream
        /// The string used at the beginning of the fatal error message.
        public let prefix: String
        /// The filename used in the error message.
        public let file: StaticString
        /// The line number used in the error message.
        public let line: UInt

        /// Creates the publisher.
        public init(upstream: Upstream, prefix: String, file: StaticString, line: UInt) {
            self.upstream = upstream
            self.prefix = prefix
            self.file = file
            self.line = line
        }

        /// Attaches the subscriber.
        public func receive<S: Subscriber>(subscriber: S) where Upstream.Output == S.Input, S.Failure == Never {
            upstream.subscribe(Inner(downstream: subscriber, prefix: prefix, file: file, line: line))
        }
    }
}

extension Publishers.AssertNoFailure {
    // Transparent, as in Combine: the downstream talks to the upstream's own subscription, and every signal passes
    // straight through (a failure stops the program whenever it comes).
    struct Inner<Downstream: Subscriber>: TransparentSubscriber, CustomStringConvertible, CustomReflectable,
        CustomPlaygroundDisplayConvertible
    where Downstream.Input == Upstream.Output, Downstream.Failure == Never {
        typealias Input = Upstream.Output
        typealias Failure = Upstream.Failure

        let downstream: Downstream
        let prefix: String
        let file: StaticString
        let line: UInt

        func receive(completion: Subscribers.Completion<Upstream.Failure>) {
            switch completion {
            case .finished:
                downstream.receive(completion: .finished)
            case .failure(let error):
                let head = prefix.isEmpty ? "" : prefix + ": "
                fatalError("\(head)assertNoFailure: unexpected failure: \(error)", file: file, line: line)
            }
        }

        var description: String { "AssertNoFailure" }

        var customMirror: Mirror {
            let children: [Mirror.Child] = [("file", file), ("line", line), ("prefix", prefix)]
            return Mirror(self, children: children)
        }
    }
}
