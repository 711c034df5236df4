// The shapes application code writes (issue 15), compiled against Untangle and OpenCombine like Workloads.swift
// (both executables symlink this file): type-erased chains, Combine's eager sequence overloads, the async/await
// bridge, and several threads sending into one stream. bench-baseline has the same work without a library.
import BenchSupport
import Dispatch
import Foundation

#if OPENCOMBINE
    import OpenCombine
#else
    import Untangle
    import UntangleExtras
#endif

/// W1 as an API that returns `AnyPublisher` at every layer produces it: subject → erase → map → erase → filter →
/// erase → sink; one event = one send.
func erasedMapFilterSink(_ n: Int) -> Int {
    let subject = PassthroughSubject<Int, Never>()
    let total = Total()
    let cancellable = subject.eraseToAnyPublisher()
        .map { $0 &* 3 }.eraseToAnyPublisher()
        .filter { $0 & 1 == 0 }.eraseToAnyPublisher()
        .sink { total.value &+= $0 }
    for i in 0..<n {
        subject.send(i)
    }
    cancellable.cancel()
    return total.value
}

/// A sequence publisher erased before map → filter → reduce → sink (an API returning
/// `AnyPublisher<Int, Never>` for a collection); one event = one element.
func erasedSequenceMapFilterReduce(_ n: Int) -> Int {
    let total = Total()
    let cancellable = streamingPipeline(
        Publishers.Sequence<Range<Int>, Never>(sequence: 0..<n).eraseToAnyPublisher(), into: total)
    cancellable.cancel()
    return total.value
}

/// `(0..<n).publisher.map { … }.filter { … }.sink { … }` exactly as written in application code: overload
/// resolution picks Combine's eager `Publishers.Sequence` overloads of map and filter. One event = one element.
func eagerSequenceMapFilterSink(_ n: Int) -> Int {
    let total = Total()
    let cancellable = (0..<n).publisher
        .map { $0 &* 3 }
        .filter { $0 & 1 == 0 }
        .sink { total.value &+= $0 }
    cancellable.cancel()
    return total.value
}

/// `for await` over `values` of a streaming (0..<n) → map → filter chain (generic, so the streaming operators run and
/// every element crosses the bridge); one event = one element. The baseline is swift-async-algorithms'
/// `(0..<n).async.map.filter`.
func valuesMapFilter(_ n: Int) -> Int {
    runBlocking {
        var total = 0
        for await value in streamingMapFilter(Publishers.Sequence<Range<Int>, Never>(sequence: 0..<n)).values {
            total &+= value
        }
        return total
    }
}

func streamingMapFilter<P: Publisher>(_ upstream: P) -> Publishers.Filter<Publishers.Map<P, Int>>
where P.Output == Int, P.Failure == Never {
    upstream.map { $0 &* 3 }.filter { $0 & 1 == 0 }
}

/// A producer thread sends n values into a subject; a task consumes them with `for await` over `values` (behind an
/// unbounded-enough buffer, since `values` asks for one value at a time and a subject does not wait). One event = one
/// value. The baseline is the same producer yielding into an `AsyncStream`.
func producerIntoValues(_ n: Int) -> Int {
    let subject = PassthroughSubject<Int, Never>()
    // Handed to the task that iterates it, and used only there.
    nonisolated(unsafe) let stream = subject.buffer(size: n, prefetch: .byRequest, whenFull: .dropNewest).values
    return runBlocking {
        var iterator = stream.makeAsyncIterator()
        // The iterator subscribed when it was made: the producer may start.
        Thread.detachNewThread {
            for i in 0..<n {
                subject.send(i)
            }
            subject.send(completion: .finished)
        }
        var total = 0
        while let value = await iterator.next() {
            total &+= value
        }
        return total
    }
}

#if !OPENCOMBINE
    /// `values-map-filter` through UntangleExtras' `values(prefetch: 64)`: the same loop with batched demand instead of
    /// Combine's `.max(1)` per `next()`. The baseline is the same swift-async-algorithms pipeline.
    func prefetchingValuesMapFilter(_ n: Int) -> Int {
        runBlocking {
            var total = 0
            let stream = streamingMapFilter(Publishers.Sequence<Range<Int>, Never>(sequence: 0..<n)).values(
                prefetch: 64)
            for await value in stream {
                total &+= value
            }
            return total
        }
    }

    /// A producer thread yields n values into an `AsyncStream` that is bridged into a publisher (UntangleExtras'
    /// `AsyncSequence.publisher`) and consumed by a sink; one event = one value. The baseline consumes the stream with
    /// `for await` directly.
    func asyncStreamIntoPublisher(_ n: Int) -> Int {
        let (stream, continuation) = AsyncStream<Int>.makeStream(bufferingPolicy: .unbounded)
        let total = Total()
        let done = DispatchSemaphore(value: 0)
        let cancellable = stream.publisher.sink(
            receiveCompletion: { _ in done.signal() },
            receiveValue: { total.value &+= $0 })
        Thread.detachNewThread {
            for i in 0..<n {
                continuation.yield(i)
            }
            continuation.finish()
        }
        done.wait()
        cancellable.cancel()
        return total.value
    }
#endif

/// `threads` threads send n/threads values each into one subject → sink. The sink counts deliveries without any
/// synchronization and checks that no delivery overlaps another: the checksum is the delivery count (n when nothing
/// was lost and delivery was serialized), or -1 when two deliveries overlapped. One event = one delivered value.
func contendedSubject(threads: Int, _ n: Int) -> Int {
    let subject = PassthroughSubject<Int, Never>()
    let counter = DeliveryCounter()
    let cancellable = subject.sink { counter.deliver($0) }
    let perThread = n / threads
    runOnThreads(threads) { _ in
        for i in 0..<perThread {
            subject.send(i)
        }
    }
    cancellable.cancel()
    return counter.checksum
}

#if !OPENCOMBINE
    /// Four subjects merged (`Publishers.MergeMany`), each sent n/4 values from its own thread; the checksum is as in
    /// `contendedSubject`. One event = one delivered value.
    func merge4Threads(_ n: Int) -> Int {
        let subjects = (0..<4).map { _ in PassthroughSubject<Int, Never>() }
        let counter = DeliveryCounter()
        let cancellable = Publishers.MergeMany(subjects).sink { counter.deliver($0) }
        let perThread = n / 4
        runOnThreads(4) { thread in
            for i in 0..<perThread {
                subjects[thread].send(i)
            }
        }
        cancellable.cancel()
        return counter.checksum
    }
#endif

/// Counts deliveries with plain (unsynchronized) stores and notices overlapping ones: correct only if the library
/// serializes delivery, which is what it checks.
final class DeliveryCounter: @unchecked Sendable {
    private var inside = false
    private var overlapped = false
    private var count = 0
    private var sum = 0

    func deliver(_ value: Int) {
        if inside { overlapped = true }
        inside = true
        count &+= 1
        sum &+= value
        inside = false
    }

    var checksum: Int { overlapped ? -1 : count }
}

let applicationShapeWorkloads: [Workload] = {
    var list = [
        Workload("erased-map-filter-sink", events: 2_000_000, unit: "send", run: erasedMapFilterSink),
        Workload(
            "erased-sequence-map-filter-reduce", events: 2_000_000, unit: "element",
            run: erasedSequenceMapFilterReduce),
        Workload("eager-sequence-map-filter-sink", events: 1_000_000, unit: "element", run: eagerSequenceMapFilterSink),
        Workload("values-map-filter", events: 1_000_000, unit: "element", singleThreaded: false, run: valuesMapFilter),
        Workload(
            "values-from-producer", events: 1_000_000, unit: "value", singleThreaded: false, run: producerIntoValues),
    ]
    #if !OPENCOMBINE
        list.append(
            Workload(
                "values-prefetch-map-filter", events: 1_000_000, unit: "element", singleThreaded: false,
                run: prefetchingValuesMapFilter))
        list.append(
            Workload(
                "asyncstream-publisher", events: 1_000_000, unit: "value", singleThreaded: false,
                run: asyncStreamIntoPublisher))
    #endif
    for threads in [2, 4, 8] {
        list.append(
            Workload(
                "contention-\(threads)-senders", events: 2_000_000, unit: "delivery", singleThreaded: false,
                run: { contendedSubject(threads: threads, $0) }))
    }
    #if !OPENCOMBINE
        list.append(
            Workload("merge-4-threads", events: 2_000_000, unit: "delivery", singleThreaded: false, run: merge4Threads))
    #endif
    return list
}()
