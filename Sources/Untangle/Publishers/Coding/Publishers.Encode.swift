extension Publisher where Output: Encodable {
    /// Encodes the output from upstream using a specified encoder.
    ///
    /// An encoding error cancels the upstream and fails the stream with that error.
    ///
    /// ```swift
    /// let cancellable = Just(Point(x: 1, y: 2))
    ///     .encode(encoder: JSONEncoder())
    ///     .sink(receiveCompletion: { _ in }, receiveValue: { data in print(data.count) })
    /// ```
    ///
    /// **Demand:** passed through unchanged.
    /// **Thread safety:** the encoder runs on the upstream's delivering thread, one value at a time, with no lock
    /// held (so one encoder instance must not be shared with code running concurrently elsewhere).
    public func encode<Coder: TopLevelEncoder>(encoder: Coder) -> Publishers.Encode<Self, Coder> {
        Publishers.Encode(upstream: self, encoder: encoder)
    }
}

extension Publisher {
    /// Decodes the output from the upstream using a specified decoder.
    ///
    /// A decoding error cancels the upstream and fails the stream with that error.
    ///
    /// ```swift
    /// let cancellable = Just(data)
    ///     .decode(type: Point.self, decoder: JSONDecoder())
    ///     .sink(receiveCompletion: { print($0) }, receiveValue: { print($0) })
    /// ```
    ///
    /// **Demand:** passed through unchanged.
    /// **Thread safety:** as ``Publisher/encode(encoder:)``.
    public func decode<Item: Decodable, Coder: TopLevelDecoder>(type: Item.Type, decoder: Coder)
        -> Publishers.Decode<Self, Item, Coder> where Output == Coder.Input
    {
        Publishers.Decode(upstream: self, decoder: decoder)
    }
}

extension Publishers {
    /// A publisher that encodes its upstream's values with an encoder.
    ///
    /// **Demand:** passed through unchanged.
    /// **Thread safety:** see ``Publisher/encode(encoder:)``.
    public struct Encode<Upstream: Publisher, Coder: TopLevelEncoder>: Publisher where Upstream.Output: Encodable {
        /// The encoded form.
        public typealias Output = Coder.Output
        /// Any error: the upstream's or the encoder's.
        public typealias Failure = Error

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream
        private let encoder: Coder

        /// Creates a publisher that encodes its upstream's values.
        public init(upstream: Upstream, encoder: Coder) {
            self.upstream = upstream
            self.encoder = encoder
        }

        /// Attaches the subscriber.
        public func receive<S: Subscriber>(subscriber: S) where Coder.Output == S.Input, S.Failure == Error {
            let encoder = self.encoder
            upstream.subscribe(
                StepSubscription(
                    downstream: subscriber, name: "Encode", behavior: .signalsOnly,
                    mirror: .custom { downstream, upstream, ended in
                        [("downstream", downstream), ("finished", ended), ("upstreamSubscription", upstream as Any)]
                            as [Mirror.Child]
                    },
                    tryStep: { value in
                        .emit(try encoder.encode(value))
                    }))
        }
    }

    /// A publisher that decodes its upstream's values with a decoder.
    ///
    /// **Demand:** passed through unchanged.
    /// **Thread safety:** see ``Publisher/decode(type:decoder:)``.
    public struct Decode<Upstream: Publisher, Output: Decodable, Coder: TopLevelDecoder>: Publisher
    where Upstream.Output == Coder.Input {
        /// Any error: the upstream's or the decoder's.
        public typealias Failure = Error

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream
        private let decoder: Coder

        /// Creates a publisher that decodes its upstream's values.
        public init(upstream: Upstream, decoder: Coder) {
            self.upstream = upstream
            self.decoder = decoder
        }

        /// Attaches the subscriber.
        public func receive<S: Subscriber>(subscriber: S) where Output == S.Input, S.Failure == Error {
            let decoder = self.decoder
            upstream.subscribe(
                StepSubscription(
                    downstream: subscriber, name: "Decode", behavior: .signalsOnly,
                    mirror: .custom { downstream, upstream, ended in
                        [("downstream", downstream), ("finished", ended), ("upstreamSubscription", upstream as Any)]
                            as [Mirror.Child]
                    },
                    tryStep: { input in
                        .emit(try decoder.decode(Output.self, from: input))
                    }))
        }
    }
}
