// The plain-Swift baseline: the same work as the reactive workloads, with closures and loops, no library.
// Stages are closures hidden from the optimizer (`opaque`), as a library's stored closures are, so each stage
// costs an indirect call; a "subject" is an array of handlers; nothing is thread-safe except where the workload
// itself is multi-threaded (cancelbag: an array behind an NSLock; receive-on: DispatchQueue.async per value).
import AsyncAlgorithms
import BenchSupport
import Dispatch
import Foundation

@_optimize(none)
func opaque<T>(_ value: T) -> T { value }

final class Total {
    var value = 0
}

/// A "subject": handlers keyed by a token, called in a loop.
final class Broadcaster {
    var handlers: [(Int) -> Void] = []
    var tokens: [Int] = []
    var nextToken = 0

    func subscribe(_ handler: @escaping (Int) -> Void) -> Int {
        nextToken += 1
        handlers.append(handler)
        tokens.append(nextToken)
        return nextToken
    }

    func unsubscribe(_ token: Int) {
        if let index = tokens.firstIndex(of: token) {
            handlers.remove(at: index)
            tokens.remove(at: index)
        }
    }

    func send(_ value: Int) {
        for handler in handlers {
            handler(value)
        }
    }
}

/// A cancellation token (what a reactive subscription's handle is).
final class Token {
    var action: (() -> Void)?
    init(_ action: @escaping () -> Void) { self.action = action }
    func cancel() {
        let action = self.action
        self.action = nil
        action?()
    }
}

func chain(into total: Total) -> (Int) -> Void {
    let map: (Int) -> Int = opaque { $0 &* 3 }
    let filter: (Int) -> Bool = opaque { $0 & 1 == 0 }
    let sink: (Int) -> Void = opaque { total.value &+= $0 }
    return { value in
        let mapped = map(value)
        if filter(mapped) { sink(mapped) }
    }
}

func subjectMapFilterSink(_ n: Int) -> Int {
    let subject = Broadcaster()
    let total = Total()
    _ = subject.subscribe(chain(into: total))
    for i in 0..<n {
        subject.send(i)
    }
    return total.value
}

func sequenceMapFilterReduce(_ n: Int) -> Int {
    let map: (Int) -> Int = opaque { $0 &* 3 }
    let filter: (Int) -> Bool = opaque { $0 & 1 == 0 }
    let reduce: (Int, Int) -> Int = opaque { $0 &+ $1 }
    var accumulator = 0
    for element in opaque(0..<n) {
        let mapped = map(element)
        if filter(mapped) { accumulator = reduce(accumulator, mapped) }
    }
    return accumulator
}

func subscribeCancel(_ n: Int) -> Int {
    let subject = Broadcaster()
    let total = Total()
    for _ in 0..<n {
        let token = subject.subscribe(opaque { total.value &+= $0 })
        let handle = Token { [unowned subject] in subject.unsubscribe(token) }
        handle.cancel()
    }
    subject.send(1)
    return total.value + n
}

func fanOut(_ n: Int) -> Int {
    let subject = Broadcaster()
    let total = Total()
    for _ in 0..<1_000 {
        _ = subject.subscribe(opaque { total.value &+= $0 })
    }
    for i in 0..<max(n / 1_000, 1) {
        subject.send(i)
    }
    return total.value
}

func flatMapJust(_ n: Int) -> Int {
    let subject = Broadcaster()
    let total = Total()
    let inner: (Int) -> Int? = opaque { $0 }  // "Just": produce the one value
    let sink: (Int) -> Void = opaque { total.value &+= $0 }
    _ = subject.subscribe { value in
        if let produced = inner(value) { sink(produced) }
    }
    for i in 0..<n {
        subject.send(i)
    }
    return total.value
}

func merge8(_ n: Int) -> Int {
    let subjects = (0..<8).map { _ in Broadcaster() }
    let total = Total()
    let sink: (Int) -> Void = opaque { total.value &+= $0 }
    for subject in subjects {
        _ = subject.subscribe(sink)
    }
    for i in 0..<n {
        subjects[i & 7].send(i)
    }
    return total.value
}

/// A producer (or relay) calling one handler per value.
func plainHandler(_ n: Int) -> Int {
    let total = Total()
    let handler: (Int) -> Void = opaque { total.value &+= $0 }
    for i in 0..<n {
        handler(i)
    }
    return total.value
}

/// A "subject" that keeps its latest value (a replay buffer of one) with one handler.
func replaySubjectSink(_ n: Int) -> Int {
    let subject = Broadcaster()
    let total = Total()
    let latest = Total()
    _ = subject.subscribe(opaque { total.value &+= $0 })
    for i in 0..<n {
        latest.value = i
        subject.send(i)
    }
    return total.value
}

func combineLatest2(_ n: Int) -> Int {
    let a = Broadcaster()
    let b = Broadcaster()
    let total = Total()
    var latestA: Int?
    var latestB: Int?
    let sink: ((Int, Int)) -> Void = opaque { total.value &+= $0.0 &+ $0.1 }
    _ = a.subscribe { value in
        latestA = value
        if let latestB { sink((value, latestB)) }
    }
    _ = b.subscribe { value in
        latestB = value
        if let latestA { sink((latestA, value)) }
    }
    for i in 0..<n / 2 {
        a.send(i)
        b.send(i)
    }
    return total.value
}

func zip2(_ n: Int) -> Int {
    let a = Broadcaster()
    let b = Broadcaster()
    let total = Total()
    var queueA: [Int] = []
    var queueB: [Int] = []
    var headA = 0
    var headB = 0
    let sink: ((Int, Int)) -> Void = opaque { total.value &+= $0.0 &+ $0.1 }
    func pair() {
        while headA < queueA.count && headB < queueB.count {
            sink((queueA[headA], queueB[headB]))
            headA += 1
            headB += 1
        }
        if headA == queueA.count { queueA.removeAll(keepingCapacity: true); headA = 0 }
        if headB == queueB.count { queueB.removeAll(keepingCapacity: true); headB = 0 }
    }
    _ = a.subscribe {
        queueA.append($0); pair()
    }
    _ = b.subscribe {
        queueB.append($0); pair()
    }
    for i in 0..<n / 2 {
        a.send(i)
        b.send(i)
    }
    return total.value
}

func receiveOnSerialQueue(_ n: Int) -> Int {
    let queue = DispatchQueue(label: "bench.receive-on")
    let total = Total()
    let done = DispatchSemaphore(value: 0)
    var received = 0
    let sink: (Int) -> Void = opaque { value in
        total.value &+= value
        received += 1
        if received == n { done.signal() }
    }
    for i in 0..<n {
        queue.async { sink(i) }
    }
    done.wait()
    return total.value
}

func demandOneByOne(_ n: Int) -> Int {
    // The source loop and a demand counter the subscriber bumps by one per value.
    var demand = 1
    var total = 0
    let receive: (Int) -> Void = opaque {
        total &+= $0; demand += 1
    }
    var next = 0
    while demand > 0 && next < n {
        demand -= 1
        receive(next)
        next += 1
    }
    return total
}

func cancelBagContention(_ n: Int) -> Int {
    let perThread = n / 2
    let items = (0..<2).map { _ in (0..<perThread).map { _ in Token {} } }
    let lock = NSLock()
    var bag: [Token] = []
    DispatchQueue.concurrentPerform(iterations: 2) { thread in
        for item in items[thread] {
            lock.lock()
            bag.append(item)
            lock.unlock()
        }
    }
    return bag.count
}

func memoryPerSubscription(_ n: Int) -> Int {
    let subject = Broadcaster()
    var held: [Token] = []
    held.reserveCapacity(n)
    let before = heapBytesInUse()
    for _ in 0..<n {
        let token = subject.subscribe { _ in }
        held.append(Token { [unowned subject] in subject.unsubscribe(token) })
    }
    let after = heapBytesInUse()
    retainedBytesPerEvent = Double(after - before) / Double(n)
    return held.count
}

// MARK: - The shapes application code writes (issue 15)

/// The array code an eager `(0..<n).publisher.map.filter.sink` stands for.
func eagerArrayMapFilter(_ n: Int) -> Int {
    var total = 0
    (0..<opaque(n)).map { $0 &* 3 }.filter { $0 & 1 == 0 }.forEach { total &+= $0 }
    return total
}

/// swift-async-algorithms' `(0..<n).async.map.filter`, consumed with `for await`.
func asyncAlgorithmsMapFilter(_ n: Int) -> Int {
    runBlocking {
        var total = 0
        for await value in (0..<n).async.map({ $0 &* 3 }).filter({ $0 & 1 == 0 }) {
            total &+= value
        }
        return total
    }
}

/// A producer thread yields n values into an `AsyncStream` consumed with `for await`.
func asyncStreamFromProducer(_ n: Int) -> Int {
    let (stream, continuation) = AsyncStream<Int>.makeStream(bufferingPolicy: .unbounded)
    Thread.detachNewThread {
        for i in 0..<n {
            continuation.yield(i)
        }
        continuation.finish()
    }
    return runBlocking {
        var total = 0
        for await value in stream {
            total &+= value
        }
        return total
    }
}

/// `threads` threads call one handler behind an `NSLock` (the mutex-guarded closure a library replaces); the
/// checksum counts deliveries as the library workloads do.
func lockedHandler(threads: Int, _ n: Int) -> Int {
    final class Counter {
        var count = 0
        var sum = 0
    }
    let counter = Counter()
    let lock = NSLock()
    let handler: (Int) -> Void = opaque { value in
        counter.count &+= 1
        counter.sum &+= value
    }
    let perThread = n / threads
    runOnThreads(threads) { _ in
        for i in 0..<perThread {
            lock.lock()
            handler(i)
            lock.unlock()
        }
    }
    return counter.count
}

/// The least a serializer that keeps the threading contract has to do, written by hand with no library around it: the
/// handler never runs under the lock (the contract's second rule), never twice at once, and no sender waits for
/// another's delivery (the third): a sender that finds the handler busy appends its value to a queue and returns; the
/// thread delivering takes the queue in batches (one swap under the lock per batch) until it is empty. No demand.
final class HandOff {
    let lock = NSLock()
    var count = 0
    var sum = 0
    var delivering = false
    var queue: [Int] = []
    let handler: (HandOff, Int) -> Void = opaque { handOff, value in
        handOff.count &+= 1
        handOff.sum &+= value
    }

    /// Delivers `value`, or queues it for the thread delivering; `batch` is the calling thread's spare storage.
    func send(_ value: Int, batch: inout [Int]) {
        lock.lock()
        if delivering {
            queue.append(value)
            lock.unlock()
            return
        }
        delivering = true
        lock.unlock()
        handler(self, value)
        while true {
            lock.lock()
            if queue.isEmpty {
                delivering = false
                lock.unlock()
                return
            }
            swap(&batch, &queue)
            lock.unlock()
            for queued in batch {
                handler(self, queued)
            }
            batch.removeAll(keepingCapacity: true)
        }
    }
}

/// `threads` threads deliver to one ``HandOff``: what this costs above `lockedHandler` is the price of the contract,
/// and what a subject → sink costs above it is the library's own. Same checksum as the other contention workloads.
func handOffHandler(threads: Int, _ n: Int) -> Int {
    let handOff = HandOff()
    let perThread = n / threads
    runOnThreads(threads) { _ in
        var batch: [Int] = []
        for i in 0..<perThread {
            handOff.send(i, batch: &batch)
        }
    }
    return handOff.count
}

/// The hand-off behind a subscriber list, the least a subject keeping the contract adds: subscribers come and go from
/// any thread, so each send reads the list under its lock (and keeps the array it read) before handing the value to
/// each subscriber's own hand-off (one subscriber here). Same checksum.
func handOffThroughList(threads: Int, _ n: Int) -> Int {
    final class List {
        let lock = NSLock()
        var subscribers: [HandOff] = []
    }
    let list = List()
    let subscriber = HandOff()
    list.subscribers = [subscriber]
    let perThread = n / threads
    runOnThreads(threads) { _ in
        var batch: [Int] = []
        for i in 0..<perThread {
            list.lock.lock()
            let subscribers = list.subscribers
            list.lock.unlock()
            for each in subscribers {
                each.send(i, batch: &batch)
            }
        }
    }
    return subscriber.count
}

benchMain(
    library: "baseline",
    workloads: [
        Workload("subject-map-filter-sink", events: 10_000_000, unit: "send", run: subjectMapFilterSink),
        Workload("sequence-map-filter-reduce", events: 10_000_000, unit: "element", run: sequenceMapFilterReduce),
        Workload("subscribe-cancel", events: 1_000_000, unit: "subscribe+cancel", run: subscribeCancel),
        Workload("fanout-1000", events: 10_000_000, unit: "delivery", run: fanOut),
        Workload("flatmap-just", events: 1_000_000, unit: "send", run: flatMapJust),
        Workload("merge-8", events: 1_000_000, unit: "send", run: merge8),
        Workload("merge-8-flatmap", events: 1_000_000, unit: "send", run: merge8),
        Workload("combinelatest-2", events: 2_000_000, unit: "send", run: combineLatest2),
        Workload("zip-2", events: 2_000_000, unit: "send", run: zip2),
        // A replay subject (bufferSize 1) with one sink: the same work as a subject with one handler (the replay
        // buffer's copy of the latest value is an assignment).
        Workload("replay-subject-sink", events: 1_000_000, unit: "send", run: replaySubjectSink),
        // A create producer with one sink, and a relay with one sink: a plain handler call each.
        Workload("create-sink", events: 1_000_000, unit: "send", run: plainHandler),
        Workload("passthrough-relay-sink", events: 1_000_000, unit: "accept", run: plainHandler),
        Workload(
            "receive-on-serial", events: 1_000_000, unit: "send", singleThreaded: false, run: receiveOnSerialQueue),
        Workload("demand-max1", events: 1_000_000, unit: "element", run: demandOneByOne),
        Workload(
            "cancelbag-2-threads", events: 1_000_000, unit: "insert", singleThreaded: false,
            run: cancelBagContention),
        Workload(
            "memory-per-subscription", events: 1_000_000, unit: "subscription", measuresRetainedBytes: true,
            run: memoryPerSubscription),
        Workload("erased-map-filter-sink", events: 2_000_000, unit: "send", run: subjectMapFilterSink),
        Workload(
            "erased-sequence-map-filter-reduce", events: 2_000_000, unit: "element", run: sequenceMapFilterReduce),
        Workload("eager-sequence-map-filter-sink", events: 1_000_000, unit: "element", run: eagerArrayMapFilter),
        Workload(
            "values-map-filter", events: 1_000_000, unit: "element", singleThreaded: false,
            run: asyncAlgorithmsMapFilter),
        Workload(
            "values-prefetch-map-filter", events: 1_000_000, unit: "element", singleThreaded: false,
            run: asyncAlgorithmsMapFilter),
        Workload(
            "values-from-producer", events: 1_000_000, unit: "value", singleThreaded: false,
            run: asyncStreamFromProducer),
        Workload(
            "asyncstream-publisher", events: 1_000_000, unit: "value", singleThreaded: false,
            run: asyncStreamFromProducer),
        Workload(
            "contention-2-senders", events: 2_000_000, unit: "delivery", singleThreaded: false,
            run: { lockedHandler(threads: 2, $0) }),
        Workload(
            "contention-4-senders", events: 2_000_000, unit: "delivery", singleThreaded: false,
            run: { lockedHandler(threads: 4, $0) }),
        Workload(
            "contention-8-senders", events: 2_000_000, unit: "delivery", singleThreaded: false,
            run: { lockedHandler(threads: 8, $0) }),
        Workload(
            "merge-4-threads", events: 2_000_000, unit: "delivery", singleThreaded: false,
            run: { lockedHandler(threads: 4, $0) }),
        // Baseline only: the contract's floor for the contention rows (see handOffHandler).
        Workload(
            "handoff-2-senders", events: 2_000_000, unit: "delivery", singleThreaded: false,
            run: { handOffHandler(threads: 2, $0) }),
        Workload(
            "handoff-4-senders", events: 2_000_000, unit: "delivery", singleThreaded: false,
            run: { handOffHandler(threads: 4, $0) }),
        Workload(
            "handoff-8-senders", events: 2_000_000, unit: "delivery", singleThreaded: false,
            run: { handOffHandler(threads: 8, $0) }),
        Workload(
            "handoff-list-2-senders", events: 2_000_000, unit: "delivery", singleThreaded: false,
            run: { handOffThroughList(threads: 2, $0) }),
        Workload(
            "handoff-list-4-senders", events: 2_000_000, unit: "delivery", singleThreaded: false,
            run: { handOffThroughList(threads: 4, $0) }),
        Workload(
            "handoff-list-8-senders", events: 2_000_000, unit: "delivery", singleThreaded: false,
            run: { handOffThroughList(threads: 8, $0) }),
        // The isolation check's workloads (Untangle only): the same closures as subject-map-filter-sink, unchecked.
        Workload("isolation-mainactor-map-filter-sink", events: 10_000_000, unit: "send", run: subjectMapFilterSink),
        Workload("isolation-none-map-filter-sink", events: 10_000_000, unit: "send", run: subjectMapFilterSink),
    ])
