import Dispatch
import Foundation
import MallocCounter

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// One benchmark workload: `run(n)` performs `n` events and returns a checksum (printed, so the work cannot be
/// optimized away, and compared across libraries by run.sh).
public struct Workload {
    public let name: String
    /// Events in a full run (the issue's counts); `--quick` divides by 100.
    public let events: Int
    /// What one event is, for the report.
    public let unit: String
    /// Whether the workload runs on one thread (the instruction-count mode only runs those).
    public let singleThreaded: Bool
    /// Report heap bytes retained per event (memory per live subscription) instead of counting allocations.
    public let measuresRetainedBytes: Bool
    public let run: (Int) -> Int

    public init(
        _ name: String, events: Int, unit: String, singleThreaded: Bool = true, measuresRetainedBytes: Bool = false,
        run: @escaping (Int) -> Int
    ) {
        self.name = name
        self.events = events
        self.unit = unit
        self.singleThreaded = singleThreaded
        self.measuresRetainedBytes = measuresRetainedBytes
        self.run = run
    }
}

/// Heap bytes in use now (for workloads that hold subscriptions and report their size).
public func heapBytesInUse() -> Int { Int(malloc_counter_bytes_in_use()) }

/// Where a workload that measures retained memory reports it (set inside `run`).
nonisolated(unsafe) public var retainedBytesPerEvent: Double = .nan

@inline(never)
public func blackHole<T>(_ value: T) {
    withExtendedLifetime(value) {}
}

/// The command line of every bench executable:
///   bench-X --list                      names of the workloads this build has
///   bench-X <workload> [--quick] [--no-allocs] [--no-warmup] [--single-threaded-process]
///
/// Unless `--single-threaded-process` is given, one idle helper thread is started before anything is measured.
/// glibc skips the atomic instructions of `pthread_mutex_lock`/`unlock` (and of other internal locks) while a process
/// has only one thread: a mutex round trip then costs about 3-4 ns here instead of about 11-12 ns. No program that
/// uses a reactive library has a single thread (an app has its main and worker threads, a server its event loops),
/// so the default measures what such a program pays; the flag reproduces the single-threaded condition.
/// prints one line: `RESULT name=<w> ns=<ns per event> allocs=<allocations per event or -> bytes=<...> check=<n>`.
public func benchMain(library: String, workloads: [Workload]) {
    let arguments = Array(CommandLine.arguments.dropFirst())
    if arguments.first == "--list" || arguments.isEmpty {
        for workload in workloads {
            print(workload.name, workload.singleThreaded ? "single" : "multi")
        }
        return
    }
    if !arguments.contains("--single-threaded-process") {
        startIdleThread()
    }
    let quick = arguments.contains("--quick")
    let countAllocations = !arguments.contains("--no-allocs")
    let warmup = !arguments.contains("--no-warmup")
    guard let workload = workloads.first(where: { $0.name == arguments[0] }) else {
        fputs("\(library): unknown workload \(arguments[0]); --list shows the workloads\n", stderr)
        exit(2)
    }
    let n = quick ? workload.events / 100 : workload.events
    if warmup && !workload.measuresRetainedBytes {
        blackHole(workload.run(max(n / 100, 1)))
    }
    retainedBytesPerEvent = .nan
    let (check, elapsed) = measuredRun(workload, n)
    let bytes = retainedBytesPerEvent
    var allocs = "-"
    if countAllocations && !workload.measuresRetainedBytes {
        // A separate, smaller pass with counting on, so the timed pass pays nothing for it.
        let m = max(n / 10, 1)
        malloc_counter_enable(1)
        let before = malloc_counter_count()
        blackHole(workload.run(m))
        let after = malloc_counter_count()
        malloc_counter_enable(0)
        allocs = format(Double(after - before) / Double(m))
    }
    let ns = Double(elapsed) / Double(n)
    print(
        "RESULT library=\(library) name=\(workload.name) n=\(n) ns=\(format(ns)) allocs=\(allocs)"
            + " bytes=\(bytes.isNaN ? "-" : format(bytes)) check=\(check)")
}

// The timed pass, in a function of its own: `run.sh --instructions` counts instructions only inside it
// (valgrind --tool=callgrind --collect-atstart=no --toggle-collect='*measuredRun*').
@inline(never)
public func measuredRun(_ workload: Workload, _ n: Int) -> (check: Int, nanoseconds: UInt64) {
    let start = DispatchTime.now().uptimeNanoseconds
    let check = workload.run(n)
    let elapsed = DispatchTime.now().uptimeNanoseconds - start
    return (check, elapsed)
}

func format(_ value: Double) -> String {
    let scaled = (value * 100).rounded() / 100
    return "\(scaled)"
}

/// Starts a thread that sleeps until the process exits (see `benchMain`).
func startIdleThread() {
    var thread = pthread_t()
    let error = pthread_create(
        &thread, nil,
        { _ in
            while true { sleep(3600) }
        }, nil)
    precondition(error == 0, "pthread_create failed with error \(error)")
}

/// Runs the main queue's work that is due now, on the main thread (the benchmark's thread): one pass of the main run
/// loop in its default mode, as an app's main thread takes between two events. The view-model chains deliver through
/// `DispatchQueue.main`, and a bench process runs no run loop, so each of them drains it itself after every event
/// (the same call in the three programs).
@inline(never)
public func drainMainQueue() {
    _ = RunLoop.main.run(mode: .default, before: .distantPast)
}

// MARK: - Helpers for the multi-threaded and async workloads

/// Runs `body` on `count` new threads that all start together (a start gate, so the first thread does not finish
/// before the last one starts) and returns when every one has returned. Threads, not Dispatch's pool: the pool would
/// run at most one work item per core on this machine, and contention needs more senders than cores.
public func runOnThreads(_ count: Int, _ body: @escaping (Int) -> Void) {
    final class Context {
        let body: (Int) -> Void
        let gate = DispatchSemaphore(value: 0)
        let done = DispatchGroup()
        init(_ body: @escaping (Int) -> Void) { self.body = body }
    }
    let context = Context(body)
    var threads: [pthread_t] = []
    for index in 0..<count {
        context.done.enter()
        let argument = Unmanaged.passRetained(ThreadArgument(context: context, index: index)).toOpaque()
        var thread = pthread_t()
        let error = pthread_create(
            &thread, nil,
            { raw in
                let argument = Unmanaged<ThreadArgument>.fromOpaque(raw!).takeRetainedValue()
                let context = argument.context as! Context
                context.gate.wait()
                context.body(argument.index)
                context.done.leave()
                return nil
            }, argument)
        precondition(error == 0, "pthread_create failed with error \(error)")
        threads.append(thread)
    }
    for _ in 0..<count { context.gate.signal() }
    context.done.wait()
    for thread in threads { pthread_join(thread, nil) }
}

/// Runs `body(0)` on the calling thread when `count` is 1 (the workload stays single-threaded, so `run.sh
/// --instructions` counts it), and as ``runOnThreads(_:_:)`` otherwise.
public func runOnThreadsOrHere(_ count: Int, _ body: @escaping (Int) -> Void) {
    if count == 1 {
        body(0)
    } else {
        runOnThreads(count, body)
    }
}

private final class ThreadArgument {
    let context: AnyObject
    let index: Int
    init(context: AnyObject, index: Int) {
        self.context = context
        self.index = index
    }
}

/// Runs an async workload from the synchronous `Workload.run`: starts a task and waits for its result (benchmark
/// code only; the waiting thread is not one of the cooperative pool's).
public func runBlocking(_ body: @escaping @Sendable () async -> Int) -> Int {
    final class Box: @unchecked Sendable { var value = 0 }
    let box = Box()
    let done = DispatchSemaphore(value: 0)
    Task.detached {
        box.value = await body()
        done.signal()
    }
    done.wait()
    return box.value
}
