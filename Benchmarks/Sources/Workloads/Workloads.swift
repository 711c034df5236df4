// The workloads, written once and compiled twice: against Untangle (bench-untangle) and against OpenCombine 0.14.0
// (bench-opencombine, built with -D OPENCOMBINE). Both executables symlink this file.
//
// Operators that Untangle's main branch does not have yet are behind `UNTANGLE_HAS_<OP>` flags (see Package.swift);
// operators OpenCombine lacks (merge, combineLatest) are behind `!OPENCOMBINE`.
import BenchSupport
import Dispatch
import Foundation

#if OPENCOMBINE
    import OpenCombine
    import OpenCombineDispatch
    let libraryName = "opencombine"
#else
    import Untangle
    import UntangleExtras
    let libraryName = "untangle"
#endif

/// A reference counter the closures add to (a class, so the work cannot be optimized away).
final class Total {
    var value = 0
}

// MARK: - The workloads

/// subject → map → filter → sink; one event = one send.
func subjectMapFilterSink(_ n: Int) -> Int {
    let subject = PassthroughSubject<Int, Never>()
    let total = Total()
    let cancellable =
        subject
        .map { $0 &* 3 }
        .filter { $0 & 1 == 0 }
        .sink { total.value &+= $0 }
    for i in 0..<n {
        subject.send(i)
    }
    cancellable.cancel()
    return total.value
}

// Generic, so that overload resolution picks the streaming `Publisher` operators and not OpenCombine's eager
// `Publishers.Sequence.map/filter/reduce` (which compute the whole result into an array up front).
func streamingPipeline<P: Publisher>(_ upstream: P, into total: Total) -> AnyCancellable
where P.Output == Int, P.Failure == Never {
    upstream
        .map { $0 &* 3 }
        .filter { $0 & 1 == 0 }
        .reduce(0, &+)
        .sink { total.value = $0 }
}

/// (0..<n).publisher → map → filter → reduce → sink, every value streaming through every stage; one event = one
/// element.
func sequenceMapFilterReduce(_ n: Int) -> Int {
    let total = Total()
    let cancellable = streamingPipeline(Publishers.Sequence<Range<Int>, Never>(sequence: 0..<n), into: total)
    cancellable.cancel()
    return total.value
}

/// Subscribe a sink to a subject and cancel it; one event = one subscribe + cancel.
func subscribeCancel(_ n: Int) -> Int {
    let subject = PassthroughSubject<Int, Never>()
    let total = Total()
    for _ in 0..<n {
        let cancellable = subject.sink { total.value &+= $0 }
        cancellable.cancel()
    }
    subject.send(1)  // nobody left to receive it
    return total.value + n
}

/// Subscribe a sink to a CurrentValueSubject (it receives the current value at once) and cancel it; one event =
/// one subscribe, the current value's delivery and one cancel: what a screen's `@Published` sink costs each time it
/// appears.
func currentValueSubscribeCancel(_ n: Int) -> Int {
    let subject = CurrentValueSubject<Int, Never>(1)
    let total = Total()
    for _ in 0..<n {
        let cancellable = subject.sink { total.value &+= $0 }
        cancellable.cancel()
    }
    return total.value
}

/// One subject, 1,000 sinks; one event = one delivery (n / 1,000 sends).
func fanOut(_ n: Int) -> Int {
    let subscribers = 1_000
    let subject = PassthroughSubject<Int, Never>()
    let total = Total()
    var cancellables: [AnyCancellable] = []
    for _ in 0..<subscribers {
        cancellables.append(subject.sink { total.value &+= $0 })
    }
    for i in 0..<max(n / subscribers, 1) {
        subject.send(i)
    }
    cancellables.removeAll()
    return total.value
}

/// A subscriber that asks for one value at a time, from inside `receive(_:)`.
final class OneAtATime: Subscriber {
    typealias Input = Int
    typealias Failure = Never
    var subscription: Subscription?
    var total = 0

    func receive(subscription: Subscription) {
        self.subscription = subscription
        subscription.request(.max(1))
    }

    func receive(_ input: Int) -> Subscribers.Demand {
        total &+= input
        subscription?.request(.max(1))
        return .none
    }

    func receive(completion: Subscribers.Completion<Never>) {
        subscription = nil
    }
}

/// A sequence publisher drained by a subscriber requesting `.max(1)` per value; one event = one value.
func demandOneByOne(_ n: Int) -> Int {
    let subscriber = OneAtATime()
    Publishers.Sequence<Range<Int>, Never>(sequence: 0..<n).subscribe(subscriber)
    return subscriber.total
}

/// Two threads storing n/2 (pre-made) cancellables each into one thread-safe container: Untangle's CancelBag,
/// OpenCombine's `Set<AnyCancellable>` behind an NSLock. One event = one insert.
func cancelBagContention(_ n: Int) -> Int {
    let perThread = n / 2
    let items = (0..<2).map { _ in (0..<perThread).map { _ in AnyCancellable {} } }
    #if OPENCOMBINE
        let lock = NSLock()
        var set = Set<AnyCancellable>()
        let store: (AnyCancellable) -> Void = { item in
            lock.lock()
            set.insert(item)
            lock.unlock()
        }
        let count: () -> Int = { set.count }
    #else
        let bag = CancelBag()
        let store: (AnyCancellable) -> Void = { bag.insert($0) }
        let count: () -> Int = { bag.count }
    #endif
    DispatchQueue.concurrentPerform(iterations: 2) { thread in
        for item in items[thread] {
            store(item)
        }
    }
    return count()
}

/// n sinks on one subject, all held; reports the heap bytes retained per subscription. One event = one subscribe.
func memoryPerSubscription(_ n: Int) -> Int {
    let subject = PassthroughSubject<Int, Never>()
    var held: [AnyCancellable] = []
    held.reserveCapacity(n)
    let before = heapBytesInUse()
    for _ in 0..<n {
        held.append(subject.sink { _ in })
    }
    let after = heapBytesInUse()
    retainedBytesPerEvent = Double(after - before) / Double(n)
    let count = held.count
    held.removeAll()
    return count
}

#if !OPENCOMBINE
    /// Publishers.MergeMany of 8 subjects; one event = one send (round robin).
    func merge8(_ n: Int) -> Int {
        let subjects = (0..<8).map { _ in PassthroughSubject<Int, Never>() }
        let total = Total()
        let cancellable = Publishers.MergeMany(subjects).sink { total.value &+= $0 }
        for i in 0..<n {
            subjects[i & 7].send(i)
        }
        cancellable.cancel()
        return total.value
    }
#endif

#if OPENCOMBINE || UNTANGLE_HAS_FLATMAP
    /// subject.flatMap { Just($0) } → sink; one event = one send.
    func flatMapJust(_ n: Int) -> Int {
        let subject = PassthroughSubject<Int, Never>()
        let total = Total()
        let cancellable = subject.flatMap { Just($0) }.sink { total.value &+= $0 }
        for i in 0..<n {
            subject.send(i)
        }
        cancellable.cancel()
        return total.value
    }

    /// The merge of 8 subjects written with flatMap (runs on both libraries); one event = one send.
    func merge8FlatMap(_ n: Int) -> Int {
        let subjects = (0..<8).map { _ in PassthroughSubject<Int, Never>() }
        let total = Total()
        let cancellable = Publishers.Sequence<[PassthroughSubject<Int, Never>], Never>(sequence: subjects)
            .flatMap { $0 }
            .sink { total.value &+= $0 }
        for i in 0..<n {
            subjects[i & 7].send(i)
        }
        cancellable.cancel()
        return total.value
    }
#endif

#if !OPENCOMBINE && UNTANGLE_HAS_COMBINELATEST
    /// combineLatest of two subjects, sends alternating; one event = one send.
    func combineLatest2(_ n: Int) -> Int {
        let a = PassthroughSubject<Int, Never>()
        let b = PassthroughSubject<Int, Never>()
        let total = Total()
        let cancellable = a.combineLatest(b).sink { total.value &+= $0.0 &+ $0.1 }
        for i in 0..<n / 2 {
            a.send(i)
            b.send(i)
        }
        cancellable.cancel()
        return total.value
    }
#endif

#if !OPENCOMBINE
    /// ReplaySubject(bufferSize: 1) → sink (UntangleExtras; OpenCombine has no ReplaySubject); one event = one send.
    func replaySubjectSink(_ n: Int) -> Int {
        let subject = ReplaySubject<Int, Never>(bufferSize: 1)
        let total = Total()
        let cancellable = subject.sink { total.value &+= $0 }
        for i in 0..<n {
            subject.send(i)
        }
        cancellable.cancel()
        return total.value
    }
#endif

#if !OPENCOMBINE
    /// `AnyPublisher.create` → sink (UntangleExtras): the producer's subscriber, captured, sends in a loop; one
    /// event = one value sent by the producer.
    func createSink(_ n: Int) -> Int {
        var producer: Publishers.Create<Int, Never>.Subscriber?
        let total = Total()
        let cancellable = AnyPublisher<Int, Never>.create { subscriber in
            producer = subscriber
            return AnyCancellable {}
        }.sink { total.value &+= $0 }
        if let producer {
            for i in 0..<n {
                producer.send(i)
            }
        }
        cancellable.cancel()
        return total.value
    }

    /// PassthroughRelay → sink (UntangleExtras); one event = one `accept`.
    func passthroughRelaySink(_ n: Int) -> Int {
        let relay = PassthroughRelay<Int>()
        let total = Total()
        let cancellable = relay.sink { total.value &+= $0 }
        for i in 0..<n {
            relay.accept(i)
        }
        cancellable.cancel()
        return total.value
    }
#endif

#if OPENCOMBINE || UNTANGLE_HAS_ZIP
    /// zip of two subjects, sends alternating; one event = one send.
    func zip2(_ n: Int) -> Int {
        let a = PassthroughSubject<Int, Never>()
        let b = PassthroughSubject<Int, Never>()
        let total = Total()
        let cancellable = a.zip(b).sink { total.value &+= $0.0 &+ $0.1 }
        for i in 0..<n / 2 {
            a.send(i)
            b.send(i)
        }
        cancellable.cancel()
        return total.value
    }
#endif

#if OPENCOMBINE || UNTANGLE_HAS_RECEIVE_ON
    /// subject.receive(on: a serial DispatchQueue) → sink; one event = one send, timed until the last delivery.
    func receiveOnSerialQueue(_ n: Int) -> Int {
        let queue = DispatchQueue(label: "bench.receive-on")
        let subject = PassthroughSubject<Int, Never>()
        let total = Total()
        let done = DispatchSemaphore(value: 0)
        var received = 0
        #if OPENCOMBINE
            let scheduler = queue.ocombine
        #else
            let scheduler = queue
        #endif
        let cancellable = subject.receive(on: scheduler).sink { value in
            total.value &+= value
            received += 1
            if received == n { done.signal() }
        }
        for i in 0..<n {
            subject.send(i)
        }
        done.wait()
        cancellable.cancel()
        return total.value
    }
#endif

// MARK: - The registry

let allWorkloads: [Workload] = {
    var list: [Workload] = [
        Workload("subject-map-filter-sink", events: 10_000_000, unit: "send", run: subjectMapFilterSink),
        Workload("sequence-map-filter-reduce", events: 10_000_000, unit: "element", run: sequenceMapFilterReduce),
        Workload("subscribe-cancel", events: 1_000_000, unit: "subscribe+cancel", run: subscribeCancel),
        Workload(
            "current-value-subscribe-cancel", events: 1_000_000, unit: "subscribe+cancel",
            run: currentValueSubscribeCancel),
        Workload("fanout-1000", events: 10_000_000, unit: "delivery", run: fanOut),
    ]
    #if OPENCOMBINE || UNTANGLE_HAS_FLATMAP
        list.append(Workload("flatmap-just", events: 1_000_000, unit: "send", run: flatMapJust))
    #endif
    #if !OPENCOMBINE
        list.append(Workload("merge-8", events: 1_000_000, unit: "send", run: merge8))
    #endif
    #if OPENCOMBINE || UNTANGLE_HAS_FLATMAP
        list.append(Workload("merge-8-flatmap", events: 1_000_000, unit: "send", run: merge8FlatMap))
    #endif
    #if !OPENCOMBINE && UNTANGLE_HAS_COMBINELATEST
        list.append(Workload("combinelatest-2", events: 2_000_000, unit: "send", run: combineLatest2))
    #endif
    #if !OPENCOMBINE
        list.append(Workload("replay-subject-sink", events: 1_000_000, unit: "send", run: replaySubjectSink))
        list.append(Workload("create-sink", events: 1_000_000, unit: "send", run: createSink))
        list.append(Workload("passthrough-relay-sink", events: 1_000_000, unit: "accept", run: passthroughRelaySink))
    #endif
    #if OPENCOMBINE || UNTANGLE_HAS_ZIP
        list.append(Workload("zip-2", events: 2_000_000, unit: "send", run: zip2))
    #endif
    #if OPENCOMBINE || UNTANGLE_HAS_RECEIVE_ON
        list.append(
            Workload(
                "receive-on-serial", events: 1_000_000, unit: "send", singleThreaded: false,
                run: receiveOnSerialQueue))
    #endif
    list += [
        Workload("demand-max1", events: 1_000_000, unit: "element", run: demandOneByOne),
        Workload(
            "cancelbag-2-threads", events: 1_000_000, unit: "insert", singleThreaded: false,
            run: cancelBagContention),
        Workload(
            "memory-per-subscription", events: 1_000_000, unit: "subscription", measuresRetainedBytes: true,
            run: memoryPerSubscription),
    ]
    return list + applicationShapeWorkloads + isolationCheckWorkloads + extrasShapeWorkloads
}()
