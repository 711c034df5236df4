// Issue 33: the UntangleExtras shapes code migrated from RxSwift uses, each beside its closest core analogue, compiled
// against Untangle and OpenCombine like Workloads.swift (both executables symlink this file). The Extras workloads
// (`extras-*`) are Untangle only (OpenCombine has no UntangleExtras); the core analogues (`core-*`) run on both where
// OpenCombine has the operator. bench-baseline has the same work written by hand. Each workload is a plain body: no
// generic helper puts a closure call inside the measured loop.
import BenchSupport
import Dispatch
import Foundation

#if OPENCOMBINE
    import OpenCombine
    import OpenCombineDispatch
#else
    import Untangle
    import UntangleExtras
#endif

// MARK: - The view-model chain: relay → map → removeDuplicates → Driver → sink

#if !OPENCOMBINE
    /// RxSwift's `BehaviorRelay → map → distinctUntilChanged → asDriver → drive`, as migrated: `CurrentValueRelay →
    /// map → removeDuplicates → asDriver() → drive`. Run on the main thread; after each `accept` the main queue is
    /// drained once (one run-loop pass), so every value that passes `removeDuplicates` is delivered before the next
    /// `accept`. `map { $0 >> 1 }` makes every other value a duplicate. One event = one `accept` and one drain.
    func extrasRelayDriverChain(_ n: Int) -> Int {
        let relay = CurrentValueRelay(0)
        let total = Total()
        let cancellable =
            relay
            .map { $0 >> 1 }
            .removeDuplicates()
            .asDriver()
            .drive { total.value &+= $0 }
        drainMainQueue()  // the current value, replayed through the main queue
        for i in 0..<n {
            relay.accept(i)
            drainMainQueue()
        }
        cancellable.cancel()
        drainMainQueue()
        return total.value
    }
#endif

/// The core chain closest to the Driver one: a `Driver` is `share(replay: 1)` → `receive(on: DispatchQueue.main)` →
/// `eraseToAnyPublisher()`; Combine has no `share(replay:)`, so this keeps `share()` (one upstream subscription for
/// every subscriber) and the erasure, and the head is a `CurrentValueSubject` (which gives a new subscriber the
/// current value, the part of the replay a view model relies on). Same drains as the Driver chain. One event = one
/// `send` and one drain.
func coreSubjectReceiveChain(_ n: Int) -> Int {
    let subject = CurrentValueSubject<Int, Never>(0)
    let total = Total()
    #if OPENCOMBINE
        let main = DispatchQueue.main.ocombine
    #else
        let main = DispatchQueue.main
    #endif
    let cancellable =
        subject
        .map { $0 >> 1 }
        .removeDuplicates()
        .share()
        .receive(on: main)
        .eraseToAnyPublisher()
        .sink { total.value &+= $0 }
    drainMainQueue()
    for i in 0..<n {
        subject.send(i)
        drainMainQueue()
    }
    cancellable.cancel()
    drainMainQueue()
    return total.value
}

/// The same chain without `share()` and the erasure (`CurrentValueSubject → map → removeDuplicates →
/// receive(on: DispatchQueue.main) → sink`), as a core view model with one subscriber writes it: what the sharing
/// costs in the core chain. Same drains. One event = one `send` and one drain.
func coreSubjectReceiveChainUnshared(_ n: Int) -> Int {
    let subject = CurrentValueSubject<Int, Never>(0)
    let total = Total()
    #if OPENCOMBINE
        let main = DispatchQueue.main.ocombine
    #else
        let main = DispatchQueue.main
    #endif
    let cancellable =
        subject
        .map { $0 >> 1 }
        .removeDuplicates()
        .receive(on: main)
        .sink { total.value &+= $0 }
    drainMainQueue()
    for i in 0..<n {
        subject.send(i)
        drainMainQueue()
    }
    cancellable.cancel()
    drainMainQueue()
    return total.value
}

// MARK: - withLatestFrom, sample (vs combineLatest), flatMapLatest (vs map + switchToLatest)

#if !OPENCOMBINE
    /// `a.withLatestFrom(b) { ($0, $1) }` → sink, sends alternating as in combinelatest-2 (its analogue); a's first
    /// value finds no value of b and is dropped. One event = one send.
    func extrasWithLatestFrom2(_ n: Int) -> Int {
        let a = PassthroughSubject<Int, Never>()
        let b = PassthroughSubject<Int, Never>()
        let total = Total()
        let cancellable = a.withLatestFrom(b) { ($0, $1) }.sink { total.value &+= $0.0 &+ $0.1 }
        for i in 0..<n / 2 {
            a.send(i)
            b.send(i)
        }
        cancellable.cancel()
        return total.value
    }

    /// `a.sample(b)` → sink, sends alternating as in combinelatest-2 (its analogue): each send into b samples the
    /// value a sent just before. One event = one send.
    func extrasSample2(_ n: Int) -> Int {
        let a = PassthroughSubject<Int, Never>()
        let b = PassthroughSubject<Int, Never>()
        let total = Total()
        let cancellable = a.sample(b).sink { total.value &+= $0 }
        for i in 0..<n / 2 {
            a.send(i)
            b.send(i)
        }
        cancellable.cancel()
        return total.value
    }

    /// `subject.flatMapLatest { Just($0) }` → sink. One event = one send.
    func extrasFlatMapLatestJust(_ n: Int) -> Int {
        let subject = PassthroughSubject<Int, Never>()
        let total = Total()
        let cancellable = subject.flatMapLatest { Just($0) }.sink { total.value &+= $0 }
        for i in 0..<n {
            subject.send(i)
        }
        cancellable.cancel()
        return total.value
    }
#endif

/// `subject.map { Just($0) }.switchToLatest()` → sink, what `flatMapLatest` is written as in core Combine. One event =
/// one send.
func coreMapSwitchToLatestJust(_ n: Int) -> Int {
    let subject = PassthroughSubject<Int, Never>()
    let total = Total()
    let cancellable = subject.map { Just($0) }.switchToLatest().sink { total.value &+= $0 }
    for i in 0..<n {
        subject.send(i)
    }
    cancellable.cancel()
    return total.value
}

// MARK: - share(replay: 1) vs share(), 1 and 100 subscribers

#if !OPENCOMBINE
    /// `subject.share(replay: 1)` with one sink. One event = one delivery (one send).
    func extrasShareReplay1(_ n: Int) -> Int {
        let subject = PassthroughSubject<Int, Never>()
        let total = Total()
        let cancellable = subject.share(replay: 1).sink { total.value &+= $0 }
        for i in 0..<n {
            subject.send(i)
        }
        cancellable.cancel()
        return total.value
    }

    /// `subject.share(replay: 1)` with 100 sinks. One event = one delivery (n / 100 sends).
    func extrasShareReplay100(_ n: Int) -> Int {
        let subject = PassthroughSubject<Int, Never>()
        let shared = subject.share(replay: 1)
        let total = Total()
        var cancellables: [AnyCancellable] = []
        for _ in 0..<100 {
            cancellables.append(shared.sink { total.value &+= $0 })
        }
        for i in 0..<max(n / 100, 1) {
            subject.send(i)
        }
        cancellables.removeAll()
        return total.value
    }
#endif

/// `subject.share()` with one sink. One event = one delivery (one send).
func coreShare1(_ n: Int) -> Int {
    let subject = PassthroughSubject<Int, Never>()
    let total = Total()
    let cancellable = subject.share().sink { total.value &+= $0 }
    for i in 0..<n {
        subject.send(i)
    }
    cancellable.cancel()
    return total.value
}

/// `subject.share()` with 100 sinks. One event = one delivery (n / 100 sends).
func coreShare100(_ n: Int) -> Int {
    let subject = PassthroughSubject<Int, Never>()
    let shared = subject.share()
    let total = Total()
    var cancellables: [AnyCancellable] = []
    for _ in 0..<100 {
        cancellables.append(shared.sink { total.value &+= $0 })
    }
    for i in 0..<max(n / 100, 1) {
        subject.send(i)
    }
    cancellables.removeAll()
    return total.value
}

// MARK: - Relays and ReplaySubject vs the subjects

#if !OPENCOMBINE
    /// `CurrentValueRelay` → sink (its analogue: core-current-value-subject-sink). One event = one `accept`.
    func extrasCurrentValueRelaySink(_ n: Int) -> Int {
        let relay = CurrentValueRelay(0)
        let total = Total()
        let cancellable = relay.sink { total.value &+= $0 }
        for i in 0..<n {
            relay.accept(i)
        }
        cancellable.cancel()
        return total.value
    }
#endif

/// `CurrentValueSubject` → sink: the analogue of replay-subject-sink (`ReplaySubject(bufferSize: 1)`) and of
/// extras-current-value-relay-sink. One event = one send.
func coreCurrentValueSubjectSink(_ n: Int) -> Int {
    let subject = CurrentValueSubject<Int, Never>(0)
    let total = Total()
    let cancellable = subject.sink { total.value &+= $0 }
    for i in 0..<n {
        subject.send(i)
    }
    cancellable.cancel()
    return total.value
}

/// `PassthroughSubject` → sink: the analogue of passthrough-relay-sink. One event = one send.
func corePassthroughSubjectSink(_ n: Int) -> Int {
    let subject = PassthroughSubject<Int, Never>()
    let total = Total()
    let cancellable = subject.sink { total.value &+= $0 }
    for i in 0..<n {
        subject.send(i)
    }
    cancellable.cancel()
    return total.value
}

// MARK: - Single.map.flatMap vs Just / Future

#if !OPENCOMBINE
    /// `Single(i).map { … }.flatMap { Single(…) }` → sink, made, subscribed and finished per event (a request-shaped
    /// call chain). One event = one single, to its completion.
    func extrasSingleMapFlatMap(_ n: Int) -> Int {
        let total = Total()
        for i in 0..<n {
            let cancellable = Single<Int, Never>(i)
                .map { $0 &* 3 }
                .flatMap { Single($0 &+ 1) }
                .sink { total.value &+= $0 }
            cancellable.cancel()
        }
        return total.value
    }

    /// `Single { promise in promise(.success(i)) }.map { … }.flatMap { Single(…) }` → sink: the single made from a
    /// callback, as request wrappers write it. One event = one single, to its completion.
    func extrasSinglePromiseMapFlatMap(_ n: Int) -> Int {
        let total = Total()
        for i in 0..<n {
            let cancellable = Single<Int, Never> { promise in promise(.success(i)) }
                .map { $0 &* 3 }
                .flatMap { Single($0 &+ 1) }
                .sink { total.value &+= $0 }
            cancellable.cancel()
        }
        return total.value
    }
#endif

/// `Just(i).map { … }.flatMap { Just(…) }` → sink, the core analogue of extras-single-map-flatmap. One event = one
/// chain, to its completion.
func coreJustMapFlatMap(_ n: Int) -> Int {
    let total = Total()
    for i in 0..<n {
        let cancellable = Just(i)
            .map { $0 &* 3 }
            .flatMap { Just($0 &+ 1) }
            .sink { total.value &+= $0 }
        cancellable.cancel()
    }
    return total.value
}

/// `Future { promise in promise(.success(i)) }.map { … }.flatMap { Just(…) }` → sink, the core analogue of
/// extras-single-promise-map-flatmap. One event = one future, to its completion.
func coreFutureMapFlatMap(_ n: Int) -> Int {
    let total = Total()
    for i in 0..<n {
        let cancellable = Future<Int, Never> { promise in promise(.success(i)) }
            .map { $0 &* 3 }
            .flatMap { Just($0 &+ 1) }
            .sink { total.value &+= $0 }
        cancellable.cancel()
    }
    return total.value
}

// MARK: - materialize / dematerialize vs map + compactMap

#if !OPENCOMBINE
    /// `subject.materialize().dematerialize()` → sink: each value wrapped into an `Event` and unwrapped again. One
    /// event = one send.
    func extrasMaterializeDematerialize(_ n: Int) -> Int {
        let subject = PassthroughSubject<Int, Never>()
        let total = Total()
        let cancellable = subject.materialize().dematerialize().sink { total.value &+= $0 }
        for i in 0..<n {
            subject.send(i)
        }
        cancellable.cancel()
        return total.value
    }
#endif

/// `subject.map { Optional($0) }.compactMap { $0 }` → sink: the core pair of stages closest to materialize and
/// dematerialize (wrap each value into an enum, unwrap it again). One event = one send.
func coreMapCompactMap(_ n: Int) -> Int {
    let subject = PassthroughSubject<Int, Never>()
    let total = Total()
    let cancellable = subject.map { Optional($0) }.compactMap { $0 }.sink { total.value &+= $0 }
    for i in 0..<n {
        subject.send(i)
    }
    cancellable.cancel()
    return total.value
}

// MARK: - amb vs merge

#if !OPENCOMBINE
    /// `a.amb(b)` → sink, every send into a (it wins with its first value; b is cancelled). One event = one send.
    func extrasAmb2(_ n: Int) -> Int {
        let a = PassthroughSubject<Int, Never>()
        let b = PassthroughSubject<Int, Never>()
        let total = Total()
        let cancellable = a.amb(b).sink { total.value &+= $0 }
        for i in 0..<n {
            a.send(i)
        }
        cancellable.cancel()
        return total.value
    }

    /// `a.zip(b, finishing: .whenEveryPublisherFinishes)` → sink, sends alternating: the zip `untangle migrate` writes
    /// for RxSwift's `Observable.zip(a, b)` (finishing as RxSwift's does), beside the core's zip-2. One event = one
    /// send.
    func extrasZipFinishing2(_ n: Int) -> Int {
        let a = PassthroughSubject<Int, Never>()
        let b = PassthroughSubject<Int, Never>()
        let total = Total()
        let cancellable = a.zip(b, finishing: .whenEveryPublisherFinishes).sink { total.value &+= $0.0 &+ $0.1 }
        for i in 0..<n / 2 {
            a.send(i)
            b.send(i)
        }
        cancellable.cancel()
        return total.value
    }

    /// `a.merge(with: b)` → sink, every send into a: the core fan-in stage closest to amb once the race is decided (one
    /// of two sources forwarded). Untangle only (OpenCombine has no merge). One event = one send.
    func coreMerge2(_ n: Int) -> Int {
        let a = PassthroughSubject<Int, Never>()
        let b = PassthroughSubject<Int, Never>()
        let total = Total()
        let cancellable = a.merge(with: b).sink { total.value &+= $0 }
        for i in 0..<n {
            a.send(i)
        }
        cancellable.cancel()
        return total.value
    }
#endif

// MARK: - CancelBag vs Set<AnyCancellable> behind a lock, from 1 and 8 threads

#if !OPENCOMBINE
    /// `threads` threads make n / threads `AnyCancellable`s each and insert them into one `CancelBag`; then the bag is
    /// cancelled (every item's closure runs once). One event = one make + insert + its cancel. The checksum counts the
    /// cancellations.
    func extrasCancelBag(threads: Int, _ n: Int) -> Int {
        let bag = CancelBag()
        let cancelled = Total()
        let perThread = n / threads
        runOnThreadsOrHere(threads) { _ in
            for _ in 0..<perThread {
                bag.insert(AnyCancellable { cancelled.value &+= 1 })
            }
        }
        bag.cancel()
        return cancelled.value
    }
#endif

/// The core way: a `Set<AnyCancellable>` behind an `NSLock`, filled the same way; cancelling takes the set out under
/// the lock and cancels each item after unlocking (no callout under a lock). One event = one make + insert + its
/// cancel.
func coreSetLock(threads: Int, _ n: Int) -> Int {
    final class LockedSet: @unchecked Sendable {
        let lock = NSLock()
        var set = Set<AnyCancellable>()
    }
    let box = LockedSet()
    let cancelled = Total()
    let perThread = n / threads
    runOnThreadsOrHere(threads) { _ in
        for _ in 0..<perThread {
            let item = AnyCancellable { cancelled.value &+= 1 }
            box.lock.lock()
            box.set.insert(item)
            box.lock.unlock()
        }
    }
    box.lock.lock()
    let items = box.set
    box.set = []
    box.lock.unlock()
    for item in items {
        item.cancel()
    }
    return cancelled.value
}

// MARK: - The registry

let extrasShapeWorkloads: [Workload] = {
    var list: [Workload] = []
    #if !OPENCOMBINE
        list += [
            Workload("extras-relay-driver-chain", events: 200_000, unit: "accept", run: extrasRelayDriverChain),
            Workload("extras-withlatestfrom-2", events: 2_000_000, unit: "send", run: extrasWithLatestFrom2),
            Workload("extras-sample-2", events: 2_000_000, unit: "send", run: extrasSample2),
            Workload("extras-flatmaplatest-just", events: 200_000, unit: "send", run: extrasFlatMapLatestJust),
            Workload("extras-share-replay-1", events: 200_000, unit: "delivery", run: extrasShareReplay1),
            Workload("extras-share-replay-100", events: 1_000_000, unit: "delivery", run: extrasShareReplay100),
            Workload(
                "extras-current-value-relay-sink", events: 2_000_000, unit: "accept", run: extrasCurrentValueRelaySink),
            Workload("extras-single-map-flatmap", events: 50_000, unit: "single", run: extrasSingleMapFlatMap),
            Workload(
                "extras-single-promise-map-flatmap", events: 50_000, unit: "single",
                run: extrasSinglePromiseMapFlatMap),
            Workload(
                "extras-materialize-dematerialize", events: 500_000, unit: "send",
                run: extrasMaterializeDematerialize),
            Workload("extras-zip-finishing-2", events: 2_000_000, unit: "send", run: extrasZipFinishing2),
            Workload("extras-amb-2", events: 2_000_000, unit: "send", run: extrasAmb2),
            Workload("core-merge-2", events: 2_000_000, unit: "send", run: coreMerge2),
            Workload(
                "extras-cancelbag-1-thread", events: 1_000_000, unit: "insert+cancel",
                run: { extrasCancelBag(threads: 1, $0) }),
            Workload(
                "extras-cancelbag-8-threads", events: 1_000_000, unit: "insert+cancel", singleThreaded: false,
                run: { extrasCancelBag(threads: 8, $0) }),
        ]
    #endif
    list += [
        Workload("core-subject-receive-chain", events: 200_000, unit: "send", run: coreSubjectReceiveChain),
        Workload(
            "core-subject-receive-chain-unshared", events: 200_000, unit: "send", run: coreSubjectReceiveChainUnshared),
        Workload("core-map-switchtolatest-just", events: 200_000, unit: "send", run: coreMapSwitchToLatestJust),
        Workload("core-share-1", events: 200_000, unit: "delivery", run: coreShare1),
        Workload("core-share-100", events: 1_000_000, unit: "delivery", run: coreShare100),
        Workload(
            "core-current-value-subject-sink", events: 2_000_000, unit: "send", run: coreCurrentValueSubjectSink),
        Workload("core-passthrough-subject-sink", events: 2_000_000, unit: "send", run: corePassthroughSubjectSink),
        Workload("core-just-map-flatmap", events: 50_000, unit: "chain", run: coreJustMapFlatMap),
        Workload("core-future-map-flatmap", events: 50_000, unit: "future", run: coreFutureMapFlatMap),
        Workload("core-map-compactmap", events: 500_000, unit: "send", run: coreMapCompactMap),
        Workload(
            "core-set-lock-1-thread", events: 1_000_000, unit: "insert+cancel", run: { coreSetLock(threads: 1, $0) }),
        Workload(
            "core-set-lock-8-threads", events: 1_000_000, unit: "insert+cancel", singleThreaded: false,
            run: { coreSetLock(threads: 8, $0) }),
    ]
    return list
}()
