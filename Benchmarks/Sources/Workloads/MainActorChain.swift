// What a chain subscribed on the main actor costs (issues 19 and 29): subject-map-filter-sink run inside
// `MainActor.assumeIsolated` and in nonisolated code. Before issue 29 Untangle took the caller's `#isolation` and the
// first workload paid Untangle's own check per closure call. Since issue 29 Untangle is a Swift 5-mode module, as
// Apple's Combine is seen by clients, and a closure formed on the main actor carries Swift's own isolation check only
// in a Swift 6 client's module; this package is compiled in Swift 5 mode, so both workloads run the same code. The
// rows are kept so that earlier runs stay comparable.
// Untangle only (bench-opencombine compiles this file to an empty list).
import BenchSupport

#if OPENCOMBINE
    let isolationCheckWorkloads: [Workload] = []
#else
    let isolationCheckWorkloads: [Workload] = [
        Workload(
            "isolation-mainactor-map-filter-sink", events: 10_000_000, unit: "send",
            run: { n in MainActor.assumeIsolated { subjectMapFilterSink(n) } }),
        Workload("isolation-none-map-filter-sink", events: 10_000_000, unit: "send", run: subjectMapFilterSink),
    ]
#endif
