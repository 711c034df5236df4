// The cost of the Swift 6 isolation check (issue 19): the same subject → map → filter → sink chain subscribed on the
// main actor (every closure wrapped in the check, which compares the delivering thread with the main thread) and in
// nonisolated code (closures stored as given). The runner calls workloads on the main thread, so the check passes.
// Untangle only: OpenCombine has no isolation parameter (bench-opencombine compiles this file to an empty list).
import BenchSupport

#if OPENCOMBINE
    let isolationCheckWorkloads: [Workload] = []
#else
    import Untangle

    /// subject → map → filter → sink with every closure checked against `isolation`; one event = one send.
    func checkedMapFilterSink(_ n: Int, isolation: (any Actor)?) -> Int {
        let subject = PassthroughSubject<Int, Never>()
        let total = Total()
        let cancellable =
            subject
            .map({ $0 &* 3 }, isolation: isolation)
            .filter({ $0 & 1 == 0 }, isolation: isolation)
            .sink(receiveValue: { total.value &+= $0 }, isolation: isolation)
        for i in 0..<n {
            subject.send(i)
        }
        cancellable.cancel()
        return total.value
    }

    let isolationCheckWorkloads: [Workload] = [
        Workload(
            "isolation-mainactor-map-filter-sink", events: 10_000_000, unit: "send",
            run: { n in MainActor.assumeIsolated { checkedMapFilterSink(n, isolation: #isolation) } }),
        Workload(
            "isolation-none-map-filter-sink", events: 10_000_000, unit: "send",
            run: { n in checkedMapFilterSink(n, isolation: nil) }),
    ]
#endif
