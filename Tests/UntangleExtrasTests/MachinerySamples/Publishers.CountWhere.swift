import Untangle

// Machinery.md's reducer sample, written outside the core as a newcomer would: an operator that answers when its
// upstream ends, on the core's reducer skeleton (`ReducerSubscription`). It is compiled and tested
// (CountWhereSampleTests), not shipped.

extension Publisher {
    /// Publishes how many values satisfied `predicate`, when the upstream finishes.
    func count(where predicate: @escaping (Output) -> Bool) -> Publishers.CountWhere<Self> {
        Publishers.CountWhere(upstream: self, predicate: predicate)
    }
}

extension Publishers {
    /// The sample reducer: see `count(where:)`.
    struct CountWhere<Upstream: Publisher>: Publisher {
        typealias Output = Int
        typealias Failure = Upstream.Failure

        let upstream: Upstream
        let predicate: (Upstream.Output) -> Bool

        func receive<S: Subscriber>(subscriber: S) where S.Input == Int, S.Failure == Failure {
            let predicate = self.predicate
            // The count is touched only by the upstream's serialized signals: no lock.
            let count = OperatorVariable(0)
            upstream.subscribe(
                ReducerSubscription(
                    downstream: subscriber, name: "CountWhere", policy: .unlimitedAtSubscription,
                    reflection: .reducer(initial: 0),
                    onValue: { value in
                        if predicate(value) { count.value += 1 }
                        return .absorb
                    },
                    onCompletion: { $0.reducerFinal(count.value) }))
        }
    }
}
