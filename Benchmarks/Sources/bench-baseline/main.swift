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

/// current-value-subscribe-cancel's baseline: subscribe-cancel's, calling the handler with the current value once
/// subscribed.
func currentValueSubscribeCancel(_ n: Int) -> Int {
    let subject = Broadcaster()
    let current = opaque(1)
    let total = Total()
    for _ in 0..<n {
        let handler: (Int) -> Void = opaque { total.value &+= $0 }
        let token = subject.subscribe(handler)
        handler(current)
        let handle = Token { [unowned subject] in subject.unsubscribe(token) }
        handle.cancel()
    }
    return total.value
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

// MARK: - Issue 33: the UntangleExtras shapes and their core analogues, by hand

/// The view-model chain by hand (the baseline of extras-relay-driver-chain and core-subject-receive-chain): a stored
/// value's handler maps, drops a repeat of the last value, and hands what is left to the main queue (one
/// `DispatchQueue.main.async` per delivered value), which is drained after every event as the workloads do.
func mainQueueChain(_ n: Int) -> Int {
    let subject = Broadcaster()
    let total = Total()
    let map: (Int) -> Int = opaque { $0 >> 1 }
    let sink: (Int) -> Void = opaque { total.value &+= $0 }
    var last: Int?
    _ = subject.subscribe { value in
        let mapped = map(value)
        if mapped == last { return }
        last = mapped
        DispatchQueue.main.async { sink(mapped) }
    }
    subject.send(0)  // the current value
    drainMainQueue()
    for i in 0..<n {
        subject.send(i)
        drainMainQueue()
    }
    return total.value
}

/// withLatestFrom by hand: b's handler keeps its latest value, a's combines with it (sends alternating).
func withLatestFrom2(_ n: Int) -> Int {
    let a = Broadcaster()
    let b = Broadcaster()
    let total = Total()
    var latestB: Int?
    let sink: ((Int, Int)) -> Void = opaque { total.value &+= $0.0 &+ $0.1 }
    _ = a.subscribe { value in
        if let latestB { sink((value, latestB)) }
    }
    _ = b.subscribe { latestB = $0 }
    for i in 0..<n / 2 {
        a.send(i)
        b.send(i)
    }
    return total.value
}

/// sample by hand: a's handler keeps its latest value not yet sampled, b's hands it on (sends alternating).
func sample2(_ n: Int) -> Int {
    let a = Broadcaster()
    let b = Broadcaster()
    let total = Total()
    var pending: Int?
    let sink: (Int) -> Void = opaque { total.value &+= $0 }
    _ = a.subscribe { pending = $0 }
    _ = b.subscribe { _ in
        if let value = pending {
            pending = nil
            sink(value)
        }
    }
    for i in 0..<n / 2 {
        a.send(i)
        b.send(i)
    }
    return total.value
}

/// One "subject" with `subscribers` handlers; one event = one delivery (the baseline of core-share-N).
func shareBroadcast(subscribers: Int, _ n: Int) -> Int {
    let subject = Broadcaster()
    let total = Total()
    for _ in 0..<subscribers {
        _ = subject.subscribe(opaque { total.value &+= $0 })
    }
    for i in 0..<max(n / subscribers, 1) {
        subject.send(i)
    }
    return total.value
}

/// The same with the latest value kept for late subscribers (a replay buffer of one; extras-share-replay-N).
func shareReplayBroadcast(subscribers: Int, _ n: Int) -> Int {
    let subject = Broadcaster()
    let total = Total()
    let latest = Total()
    for _ in 0..<subscribers {
        _ = subject.subscribe(opaque { total.value &+= $0 })
    }
    for i in 0..<max(n / subscribers, 1) {
        latest.value = i
        subject.send(i)
    }
    return total.value
}

/// `opaque` for a completion-handler function, with its concrete type (the generic one would reabstract the handler
/// argument on every call).
@_optimize(none)
func opaqueSource(_ source: @escaping (Int, (Int) -> Void) -> Void) -> (Int, (Int) -> Void) -> Void { source }

/// A one-value source by hand, for the Single, Just and Future chains: the completion-handler code a Single replaces.
/// A "single" is a function that calls its completion handler once with its value; map is a closure call; flatMap is
/// the next call made from inside the first one's handler. The handlers are not escaping, as in code that calls
/// back before returning (no allocation per event).
func oneShotChain(_ n: Int) -> Int {
    let total = Total()
    let source = opaqueSource { value, completion in completion(value) }
    let map: (Int) -> Int = opaque { $0 &* 3 }
    let sink: (Int) -> Void = opaque { total.value &+= $0 }
    for i in 0..<n {
        source(i) { value in
            source(map(value) &+ 1) { sink($0) }
        }
    }
    return total.value
}

/// Wrapping each value into an enum and unwrapping it again (materialize / dematerialize, map / compactMap).
func wrapUnwrap(_ n: Int) -> Int {
    enum Signal {
        case value(Int)
        case finished
    }
    let subject = Broadcaster()
    let total = Total()
    let wrap: (Int) -> Signal = opaque { .value($0) }
    let unwrap: (Signal) -> Int? = opaque {
        if case .value(let value) = $0 { return value }
        return nil
    }
    let sink: (Int) -> Void = opaque { total.value &+= $0 }
    _ = subject.subscribe { value in
        if let unwrapped = unwrap(wrap(value)) { sink(unwrapped) }
    }
    for i in 0..<n {
        subject.send(i)
    }
    return total.value
}

/// One of two sources forwarded to one handler (amb once decided, merge with one source sending).
func oneOfTwoSources(_ n: Int) -> Int {
    let a = Broadcaster()
    let b = Broadcaster()
    let total = Total()
    let sink: (Int) -> Void = opaque { total.value &+= $0 }
    _ = a.subscribe(sink)
    _ = b.subscribe(sink)
    for i in 0..<n {
        a.send(i)
    }
    return total.value
}

/// Tokens made by `threads` threads and appended to an array behind an `NSLock`; then the array is taken under the
/// lock and every token cancelled after unlocking. The checksum counts the cancellations.
func lockedTokens(threads: Int, _ n: Int) -> Int {
    final class Bag: @unchecked Sendable {
        let lock = NSLock()
        var items: [Token] = []
    }
    let bag = Bag()
    let cancelled = Total()
    let perThread = n / threads
    runOnThreadsOrHere(threads) { _ in
        for _ in 0..<perThread {
            let item = Token { cancelled.value &+= 1 }
            bag.lock.lock()
            bag.items.append(item)
            bag.lock.unlock()
        }
    }
    bag.lock.lock()
    let items = bag.items
    bag.items = []
    bag.lock.unlock()
    for item in items {
        item.cancel()
    }
    return cancelled.value
}

/// The least a subject needs to register one handler, keep it and unregister it, thread-safely, written by hand:
/// handlers live in slots of one array behind the holder's mutex (a freed slot is reused), and the handle a subscriber
/// keeps is one small object (the holder and the slot) whose `cancel()`, or its release, frees the slot under the
/// mutex (idempotent: the slot number is cleared under the same mutex). A send would read the slots under the mutex
/// and call the handlers after unlocking. No demand, no completion, no per-subscriber serialization. The mutex is a
/// `pthread_mutex_t` of the holder's own and the stored properties skip Swift's run-time exclusivity checks (the
/// mutex is what excludes), as a library's lock and state do.
final class HandlerHolder {
    final class Handle {
        let holder: HandlerHolder
        @exclusivity(unchecked) var slot: Int

        init(holder: HandlerHolder, slot: Int) {
            self.holder = holder
            self.slot = slot
        }

        func cancel() {
            holder.remove(self)
        }

        // No other reference to the handle exists here (the holder keeps handlers, not handles), and the last
        // release ordered every earlier write of `slot` before this read: a handle already cancelled skips the mutex.
        deinit {
            if slot >= 0 {
                holder.remove(self)
            }
        }
    }

    let mutex: UnsafeMutablePointer<pthread_mutex_t> = {
        let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
        pthread_mutex_init(mutex, nil)
        return mutex
    }()
    @exclusivity(unchecked) var handlers: [((Int) -> Void)?] = []
    @exclusivity(unchecked) var freeSlots: [Int] = []

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    func subscribe(_ handler: @escaping (Int) -> Void) -> Handle {
        pthread_mutex_lock(mutex)
        let slot: Int
        if let free = freeSlots.popLast() {
            slot = free
            handlers[slot] = handler
        } else {
            slot = handlers.count
            handlers.append(handler)
        }
        pthread_mutex_unlock(mutex)
        return Handle(holder: self, slot: slot)
    }

    func remove(_ handle: Handle) {
        pthread_mutex_lock(mutex)
        let slot = handle.slot
        if slot >= 0 {
            handle.slot = -1
            handlers[slot] = nil
            freeSlots.append(slot)
        }
        pthread_mutex_unlock(mutex)
    }
}

/// subscribe-cancel's floor: subscribe one handler to a ``HandlerHolder`` and cancel it. Baseline only.
func holderSubscribeCancel(_ n: Int) -> Int {
    let holder = HandlerHolder()
    let total = Total()
    for _ in 0..<n {
        // The handler is passed as it is (no `opaque`: a generic round trip would add reabstraction thunks, an
        // allocation each, that no library pays).
        let handle = holder.subscribe { total.value &+= $0 }
        handle.cancel()
    }
    return total.value + n
}

/// memory-per-subscription's floor: n handlers kept in one ``HandlerHolder``; reports the bytes per kept
/// subscription (its handle, its slot, the free list's growth). Baseline only.
func holderMemoryPerSubscription(_ n: Int) -> Int {
    let holder = HandlerHolder()
    var held: [HandlerHolder.Handle] = []
    held.reserveCapacity(n)
    let before = heapBytesInUse()
    for _ in 0..<n {
        held.append(holder.subscribe { _ in })
    }
    let after = heapBytesInUse()
    retainedBytesPerEvent = Double(after - before) / Double(n)
    let count = held.count
    held.removeAll()
    return count
}

benchMain(
    library: "baseline",
    workloads: [
        Workload("subject-map-filter-sink", events: 10_000_000, unit: "send", run: subjectMapFilterSink),
        Workload("sequence-map-filter-reduce", events: 10_000_000, unit: "element", run: sequenceMapFilterReduce),
        Workload("subscribe-cancel", events: 1_000_000, unit: "subscribe+cancel", run: subscribeCancel),
        Workload(
            "current-value-subscribe-cancel", events: 1_000_000, unit: "subscribe+cancel",
            run: currentValueSubscribeCancel),
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
        // Issue 33: the UntangleExtras shapes (extras-*) and their core analogues (core-*); same baseline for both.
        Workload("extras-relay-driver-chain", events: 200_000, unit: "accept", run: mainQueueChain),
        Workload("core-subject-receive-chain", events: 200_000, unit: "send", run: mainQueueChain),
        Workload("core-subject-receive-chain-unshared", events: 200_000, unit: "send", run: mainQueueChain),
        Workload("extras-withlatestfrom-2", events: 2_000_000, unit: "send", run: withLatestFrom2),
        Workload("extras-sample-2", events: 2_000_000, unit: "send", run: sample2),
        Workload("extras-flatmaplatest-just", events: 200_000, unit: "send", run: flatMapJust),
        Workload("core-map-switchtolatest-just", events: 200_000, unit: "send", run: flatMapJust),
        Workload(
            "extras-share-replay-1", events: 200_000, unit: "delivery",
            run: { shareReplayBroadcast(subscribers: 1, $0) }),
        Workload("core-share-1", events: 200_000, unit: "delivery", run: { shareBroadcast(subscribers: 1, $0) }),
        Workload(
            "extras-share-replay-100", events: 1_000_000, unit: "delivery",
            run: { shareReplayBroadcast(subscribers: 100, $0) }),
        Workload(
            "core-share-100", events: 1_000_000, unit: "delivery", run: { shareBroadcast(subscribers: 100, $0) }),
        // A subject that keeps its latest value, with one handler (as replay-subject-sink).
        Workload("extras-current-value-relay-sink", events: 2_000_000, unit: "accept", run: replaySubjectSink),
        Workload("core-current-value-subject-sink", events: 2_000_000, unit: "send", run: replaySubjectSink),
        // A plain handler call (as passthrough-relay-sink).
        Workload("core-passthrough-subject-sink", events: 2_000_000, unit: "send", run: plainHandler),
        Workload("extras-single-map-flatmap", events: 50_000, unit: "single", run: oneShotChain),
        Workload("extras-single-promise-map-flatmap", events: 50_000, unit: "single", run: oneShotChain),
        Workload("core-just-map-flatmap", events: 50_000, unit: "chain", run: oneShotChain),
        Workload("core-future-map-flatmap", events: 50_000, unit: "future", run: oneShotChain),
        Workload("extras-materialize-dematerialize", events: 500_000, unit: "send", run: wrapUnwrap),
        Workload("core-map-compactmap", events: 500_000, unit: "send", run: wrapUnwrap),
        Workload("extras-zip-finishing-2", events: 2_000_000, unit: "send", run: zip2),
        Workload("extras-amb-2", events: 2_000_000, unit: "send", run: oneOfTwoSources),
        Workload("core-merge-2", events: 2_000_000, unit: "send", run: oneOfTwoSources),
        Workload(
            "extras-cancelbag-1-thread", events: 1_000_000, unit: "insert+cancel",
            run: { lockedTokens(threads: 1, $0) }),
        Workload(
            "core-set-lock-1-thread", events: 1_000_000, unit: "insert+cancel", run: { lockedTokens(threads: 1, $0) }),
        Workload(
            "extras-cancelbag-8-threads", events: 1_000_000, unit: "insert+cancel", singleThreaded: false,
            run: { lockedTokens(threads: 8, $0) }),
        Workload(
            "core-set-lock-8-threads", events: 1_000_000, unit: "insert+cancel", singleThreaded: false,
            run: { lockedTokens(threads: 8, $0) }),
        // Baseline only: the floor of a subscription (see HandlerHolder).
        Workload("holder-subscribe-cancel", events: 1_000_000, unit: "subscribe+cancel", run: holderSubscribeCancel),
        Workload(
            "holder-memory-per-subscription", events: 1_000_000, unit: "subscription", measuresRetainedBytes: true,
            run: holderMemoryPerSubscription),
    ])
