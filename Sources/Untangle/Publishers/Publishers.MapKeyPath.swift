extension Publisher {
    /// Publishes the value of a key path.
    ///
    /// ```swift
    /// struct DiceRoll { let die: Int }
    /// let cancellable = Just(DiceRoll(die: 3))
    ///     .map(\.die)
    ///     .sink { print($0) }   // 3
    /// ```
    ///
    /// **Demand:** passed through unchanged: the downstream's subscription is the upstream's own.
    /// **Thread safety:** as the upstream; the key path is read on the thread that delivers each value.
    public func map<T>(_ keyPath: KeyPath<Output, T>) -> Publishers.MapKeyPath<Self, T> {
        Publishers.MapKeyPath(upstream: self, keyPath: keyPath)
    }

    /// Publishes the values of two key paths as a tuple.
    ///
    /// ```swift
    /// struct DiceRoll { let die: Int; let other: Int }
    /// let cancellable = Just(DiceRoll(die: 3, other: 5))
    ///     .map(\.die, \.other)
    ///     .sink { print($0) }   // (3, 5)
    /// ```
    ///
    /// **Demand:** passed through unchanged.
    /// **Thread safety:** as the upstream; the key paths are read on the thread that delivers each value.
    public func map<T0, T1>(_ keyPath0: KeyPath<Output, T0>, _ keyPath1: KeyPath<Output, T1>)
        -> Publishers.MapKeyPath2<Self, T0, T1>
    {
        Publishers.MapKeyPath2(upstream: self, keyPath0: keyPath0, keyPath1: keyPath1)
    }

    /// Publishes the values of three key paths as a tuple.
    ///
    /// ```swift
    /// struct DiceRoll { let die: Int; let other: Int; let third: Int }
    /// let cancellable = Just(DiceRoll(die: 3, other: 5, third: 1))
    ///     .map(\.die, \.other, \.third)
    ///     .sink { print($0) }   // (3, 5, 1)
    /// ```
    ///
    /// **Demand:** passed through unchanged.
    /// **Thread safety:** as the upstream; the key paths are read on the thread that delivers each value.
    public func map<T0, T1, T2>(
        _ keyPath0: KeyPath<Output, T0>, _ keyPath1: KeyPath<Output, T1>, _ keyPath2: KeyPath<Output, T2>
    ) -> Publishers.MapKeyPath3<Self, T0, T1, T2> {
        Publishers.MapKeyPath3(upstream: self, keyPath0: keyPath0, keyPath1: keyPath1, keyPath2: keyPath2)
    }
}

extension Publishers {
    /// A publisher that publishes the value of a key path.
    ///
    /// **Demand:** passed through unchanged.
    /// **Thread safety:** as the upstream.
    public struct MapKeyPath<Upstream: Publisher, Output>: Publisher {
        /// The kind of errors this publisher might publish: the upstream's.
        public typealias Failure = Upstream.Failure

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream

        /// The key path of a property to publish.
        public let keyPath: KeyPath<Upstream.Output, Output>

        init(upstream: Upstream, keyPath: KeyPath<Upstream.Output, Output>) {
            self.upstream = upstream
            self.keyPath = keyPath
        }

        /// Attaches the subscriber through a transparent wrapper.
        public func receive<S: Subscriber>(subscriber: S) where Output == S.Input, Upstream.Failure == S.Failure {
            let keyPath = self.keyPath
            upstream.subscribe(
                KeyPathInner(downstream: subscriber, keyPaths: [keyPath]) { (value: Upstream.Output) in
                    value[keyPath: keyPath]
                })
        }
    }

    /// A publisher that publishes the values of two key paths as a tuple.
    ///
    /// **Demand:** passed through unchanged.
    /// **Thread safety:** as the upstream.
    public struct MapKeyPath2<Upstream: Publisher, Output0, Output1>: Publisher {
        /// The two properties, as a tuple.
        public typealias Output = (Output0, Output1)
        /// The kind of errors this publisher might publish: the upstream's.
        public typealias Failure = Upstream.Failure

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream

        /// The key path of a property to publish.
        public let keyPath0: KeyPath<Upstream.Output, Output0>

        /// The key path of a second property to publish.
        public let keyPath1: KeyPath<Upstream.Output, Output1>

        init(
            upstream: Upstream, keyPath0: KeyPath<Upstream.Output, Output0>, keyPath1: KeyPath<Upstream.Output, Output1>
        ) {
            self.upstream = upstream
            self.keyPath0 = keyPath0
            self.keyPath1 = keyPath1
        }

        /// Attaches the subscriber through a transparent wrapper.
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, Upstream.Failure == S.Failure {
            let keyPath0 = self.keyPath0
            let keyPath1 = self.keyPath1
            upstream.subscribe(
                KeyPathInner(downstream: subscriber, keyPaths: [keyPath0, keyPath1]) { (value: Upstream.Output) in
                    (value[keyPath: keyPath0], value[keyPath: keyPath1])
                })
        }
    }

    /// A publisher that publishes the values of three key paths as a tuple.
    ///
    /// **Demand:** passed through unchanged.
    /// **Thread safety:** as the upstream.
    public struct MapKeyPath3<Upstream: Publisher, Output0, Output1, Output2>: Publisher {
        /// The three properties, as a tuple.
        public typealias Output = (Output0, Output1, Output2)
        /// The kind of errors this publisher might publish: the upstream's.
        public typealias Failure = Upstream.Failure

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream

        /// The key path of a property to publish.
        public let keyPath0: KeyPath<Upstream.Output, Output0>

        /// The key path of a second property to publish.
        public let keyPath1: KeyPath<Upstream.Output, Output1>

        /// The key path of a third property to publish.
        public let keyPath2: KeyPath<Upstream.Output, Output2>

        init(
            upstream: Upstream, keyPath0: KeyPath<Upstream.Output, Output0>,
            keyPath1: KeyPath<Upstream.Output, Output1>, keyPath2: KeyPath<Upstream.Output, Output2>
        ) {
            self.upstream = upstream
            self.keyPath0 = keyPath0
            self.keyPath1 = keyPath1
            self.keyPath2 = keyPath2
        }

        /// Attaches the subscriber through a transparent wrapper.
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, Upstream.Failure == S.Failure {
            let keyPath0 = self.keyPath0
            let keyPath1 = self.keyPath1
            let keyPath2 = self.keyPath2
            upstream.subscribe(
                KeyPathInner(downstream: subscriber, keyPaths: [keyPath0, keyPath1, keyPath2]) {
                    (value: Upstream.Output) in
                    (value[keyPath: keyPath0], value[keyPath: keyPath1], value[keyPath: keyPath2])
                })
        }
    }
}

// Transparent like Map's (the downstream talks to the upstream's own subscription), described as Combine describes
// its key-path maps: "ValueForKey" with its key path, or "ValueForKeys" with `keyPath0`, `keyPath1`...
private struct KeyPathInner<Input, Downstream: Subscriber>: TransparentSubscriber, CustomStringConvertible,
    CustomReflectable,
    CustomPlaygroundDisplayConvertible
{
    typealias Failure = Downstream.Failure

    let downstream: Downstream
    let keyPaths: [AnyKeyPath]
    let transform: (Input) -> Downstream.Input

    init(downstream: Downstream, keyPaths: [AnyKeyPath], transform: @escaping (Input) -> Downstream.Input) {
        self.downstream = downstream
        self.keyPaths = keyPaths
        self.transform = transform
    }

    func receive(_ input: Input) -> Subscribers.Demand {
        downstream.receive(transform(input))
    }

    var description: String { keyPaths.count == 1 ? "ValueForKey" : "ValueForKeys" }

    var customMirror: Mirror {
        if keyPaths.count == 1 {
            return Mirror(self, children: [("keyPath", keyPaths[0])])
        }
        return Mirror(self, children: keyPaths.enumerated().map { (label: "keyPath\($0.offset)", value: $0.element) })
    }
}
