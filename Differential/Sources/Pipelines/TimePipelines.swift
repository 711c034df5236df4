// The time mode of the differential check (`diff-untangle --time FIRST COUNT`, the same for diff-opencombine): random
// pipelines with the time operators both libraries have (debounce, throttle, delay, timeout, receive(on:),
// subscribe(on:), measureInterval), mixed with the synchronous generator's operators, over the same sources, on a
// virtual clock that only the script moves. OpenCombine 0.14.0 has no `collect(.byTime)`/`collect(.byTimeOrCount)`
// (no `Publishers.TimeGroupingStrategy`), so they are not drawn.
#if OPENCOMBINE
    import OpenCombine
#else
    import Untangle
#endif

/// A span of virtual time, in nanoseconds. An integer literal is a number of nanoseconds.
struct VirtualStride: SchedulerTimeIntervalConvertible, Comparable, SignedNumeric, ExpressibleByIntegerLiteral,
    CustomStringConvertible
{
    var nanoseconds: Int

    init(nanoseconds: Int) { self.nanoseconds = nanoseconds }
    init(integerLiteral value: Int) { nanoseconds = value }
    init?<T: BinaryInteger>(exactly source: T) {
        guard let value = Int(exactly: source) else { return nil }
        nanoseconds = value
    }

    var magnitude: VirtualStride { VirtualStride(nanoseconds: abs(nanoseconds)) }
    /// Whole milliseconds, as the logs print spans.
    var milliseconds: Int { nanoseconds / 1_000_000 }
    var description: String { "\(milliseconds)ms" }

    static func seconds(_ s: Int) -> VirtualStride { VirtualStride(nanoseconds: s * 1_000_000_000) }
    static func seconds(_ s: Double) -> VirtualStride { VirtualStride(nanoseconds: Int(s * 1_000_000_000)) }
    static func milliseconds(_ ms: Int) -> VirtualStride { VirtualStride(nanoseconds: ms * 1_000_000) }
    static func microseconds(_ us: Int) -> VirtualStride { VirtualStride(nanoseconds: us * 1_000) }
    static func nanoseconds(_ ns: Int) -> VirtualStride { VirtualStride(nanoseconds: ns) }

    static func < (lhs: VirtualStride, rhs: VirtualStride) -> Bool { lhs.nanoseconds < rhs.nanoseconds }
    static func + (lhs: VirtualStride, rhs: VirtualStride) -> VirtualStride {
        VirtualStride(nanoseconds: lhs.nanoseconds + rhs.nanoseconds)
    }
    static func - (lhs: VirtualStride, rhs: VirtualStride) -> VirtualStride {
        VirtualStride(nanoseconds: lhs.nanoseconds - rhs.nanoseconds)
    }
    static func * (lhs: VirtualStride, rhs: VirtualStride) -> VirtualStride {
        VirtualStride(nanoseconds: lhs.nanoseconds * rhs.nanoseconds)
    }
    static func *= (lhs: inout VirtualStride, rhs: VirtualStride) { lhs = lhs * rhs }
}

/// An instant of virtual time: nanoseconds since the clock started.
struct VirtualTime: Strideable, CustomStringConvertible {
    var nanoseconds: Int

    func distance(to other: VirtualTime) -> VirtualStride {
        VirtualStride(nanoseconds: other.nanoseconds - nanoseconds)
    }
    func advanced(by stride: VirtualStride) -> VirtualTime {
        VirtualTime(nanoseconds: nanoseconds + stride.nanoseconds)
    }
    var description: String { "\(nanoseconds / 1_000_000)ms" }
}

/// A deterministic scheduler on a virtual clock, written once for both libraries (neither library's test scheduler is
/// used, so both run the same one). Nothing runs until the script calls `advance(by:)`: then the actions due by the new
/// time run in (time, insertion) order, the clock set to each one's time as it runs; actions they schedule for a time
/// within the step run in the same step. The choices, which Combine's schedulers leave open:
/// - `schedule(options:_:)` queues the action for the current instant; it is not run inline, so an operator that hops
///   onto the scheduler (`receive(on:)`, `subscribe(on:)`) does so at the next `advance(by:)`, even `advance(by: 0)`.
/// - `schedule(after:...)` with a time already past queues the action at that time: it runs at the next advance,
///   before the actions queued for later, and the clock does not go back.
/// - A repeating action is queued again `interval` after the time it was due, until its `Cancellable` is cancelled.
/// - Tolerance and options are ignored.
final class VirtualScheduler: Scheduler {
    typealias SchedulerTimeType = VirtualTime
    typealias SchedulerOptions = Never

    private struct Entry {
        let time: VirtualTime
        let order: Int
        let action: () -> Void
        let repeating: (interval: VirtualStride, token: Token)?
    }

    /// The cancellable of a repeating action.
    final class Token: Cancellable {
        var cancelled = false
        func cancel() { cancelled = true }
    }

    private(set) var now = VirtualTime(nanoseconds: 0)
    var minimumTolerance: VirtualStride { 0 }
    private var queue: [Entry] = []
    private var inserted = 0

    private func enqueue(at time: VirtualTime, _ action: @escaping () -> Void, repeating: (VirtualStride, Token)? = nil)
    {
        inserted += 1
        queue.append(Entry(time: time, order: inserted, action: action, repeating: repeating))
    }

    func schedule(options: Never?, _ action: @escaping () -> Void) {
        enqueue(at: now, action)
    }

    func schedule(after date: VirtualTime, tolerance: VirtualStride, options: Never?, _ action: @escaping () -> Void) {
        enqueue(at: date, action)
    }

    func schedule(
        after date: VirtualTime, interval: VirtualStride, tolerance: VirtualStride, options: Never?,
        _ action: @escaping () -> Void
    ) -> Cancellable {
        let token = Token()
        enqueue(at: date, action, repeating: (interval, token))
        return token
    }

    /// Runs the earliest action due by `limit` (and queues a repeating one again); false when none is due.
    private func runNext(until limit: VirtualTime) -> Bool {
        let due = queue.indices.filter { queue[$0].time <= limit }
        guard
            let index = due.min(by: {
                (queue[$0].time, queue[$0].order) < (queue[$1].time, queue[$1].order)
            })
        else { return false }
        let entry = queue.remove(at: index)
        if entry.repeating?.token.cancelled == true { return true }
        now = max(now, entry.time)
        entry.action()
        if let (interval, token) = entry.repeating, !token.cancelled {
            enqueue(at: entry.time.advanced(by: max(interval, 1)), entry.action, repeating: (interval, token))
        }
        return true
    }

    /// Moves the clock `stride` forward, running every action due by then.
    func advance(by stride: VirtualStride) {
        let limit = now.advanced(by: stride)
        while runNext(until: limit) {}
        now = max(now, limit)
    }

    /// Runs the queued actions until none is left (or `limit` of them ran: a repeating action never ends).
    func runToEnd(limit: Int = 500) {
        var ran = 0
        while ran < limit, let last = queue.map(\.time).max(), runNext(until: max(last, now)) {
            ran += 1
        }
    }
}

/// Builds a random pipeline with time operators over the synchronous generator's sources.
struct TimePipelineBuilder {
    var builder: PipelineBuilder
    let scheduler: VirtualScheduler

    /// A span of 10 to 50 ms.
    mutating func interval() -> VirtualStride {
        .milliseconds([10, 20, 30, 50][builder.generator.below(4)])
    }

    /// Half the time a subject (what the script sends to over time), else any of the synchronous generator's sources.
    mutating func source() -> (Stream, String) {
        guard builder.generator.chance(50) else { return builder.source() }
        let index = builder.generator.below(builder.world.subjects.count + 1)
        if index == 3 {
            return (builder.world.current.eraseToAnyPublisher(), "subject3(current)")
        }
        return (builder.world.subjects[index].eraseToAnyPublisher(), "subject\(index)")
    }

    /// A source and one to four operators, most of them time operators; `depth` bounds the nesting of the
    /// pipelines some operators take (zip, append, flatMap's inners).
    mutating func pipeline(depth: Int = 2) -> (Stream, String) {
        var (stream, text) = source()
        for _ in 0..<(builder.generator.below(depth == 2 ? 4 : 2) + 1) {
            if builder.generator.chance(60) {
                (stream, text) = applyTimed(to: stream, text, depth: depth)
            } else {
                (stream, text) = builder.apply(to: stream, text, depth: 1)
            }
        }
        return (stream, text)
    }

    mutating func applyTimed(to upstream: Stream, _ text: String, depth: Int) -> (Stream, String) {
        let scheduler = self.scheduler
        let span = interval()
        switch builder.generator.below(depth > 0 ? 14 : 10) {
        case 10:
            // Inners that publish later: each value delayed by a span that depends on it.
            let limit: Subscribers.Demand = builder.generator.chance(50) ? .unlimited : .max(2)
            return (
                upstream.flatMap(maxPublishers: limit) { x in
                    Just(x).setFailureType(to: PipelineError.self)
                        .delay(for: .milliseconds(10 * (x % 3 + 1)), scheduler: scheduler)
                }
                .eraseToAnyPublisher(),
                text + ".flatMap(max: \(demandText(limit))){Just(x).delay(10ms*(x%3+1))}"
            )
        case 11:
            return (
                upstream.map { x in
                    Just(x).setFailureType(to: PipelineError.self)
                        .delay(for: .milliseconds(10 * (x % 3 + 1)), scheduler: scheduler)
                }
                .switchToLatest().eraseToAnyPublisher(),
                text + ".map{Just(x).delay(10ms*(x%3+1))}.switchToLatest()"
            )
        case 12:
            let (other, otherText) = pipeline(depth: depth - 1)
            return (upstream.zip(other) { $0 * 10 + $1 }.eraseToAnyPublisher(), text + ".zip(\(otherText))")
        case 13:
            let (other, otherText) = pipeline(depth: depth - 1)
            return (upstream.append(other).eraseToAnyPublisher(), text + ".append(\(otherText))")
        case 0:
            return (
                upstream.debounce(for: span, scheduler: scheduler).eraseToAnyPublisher(), text + ".debounce(\(span))"
            )
        case 1, 2:
            let latest = builder.generator.chance(50)
            return (
                upstream.throttle(for: span, scheduler: scheduler, latest: latest).eraseToAnyPublisher(),
                text + ".throttle(\(span), latest: \(latest))"
            )
        case 3:
            return (upstream.delay(for: span, scheduler: scheduler).eraseToAnyPublisher(), text + ".delay(\(span))")
        case 4:
            return (upstream.timeout(span, scheduler: scheduler).eraseToAnyPublisher(), text + ".timeout(\(span))")
        case 5:
            return (
                upstream.timeout(span, scheduler: scheduler, customError: { .thrown(99) }).eraseToAnyPublisher(),
                text + ".timeout(\(span), customError: thrown(99))"
            )
        case 6:
            return (upstream.receive(on: scheduler).eraseToAnyPublisher(), text + ".receive(on:)")
        case 7:
            return (upstream.subscribe(on: scheduler).eraseToAnyPublisher(), text + ".subscribe(on:)")
        default:
            // The stride between values, in milliseconds.
            return (
                upstream.measureInterval(using: scheduler).map { $0.milliseconds }.eraseToAnyPublisher(),
                text + ".measureInterval.ms"
            )
        }
    }
}

/// The time mode's script steps, one drawn at a time: a third of them advance the clock.
let timeMix: [ScriptStep] =
    Array(repeating: .send, count: 6) + [.finish, .fail, .request, .request, .cancel, .fulfil, .toggleConnection]
    + Array(repeating: .advance, count: 5)

/// Builds seed's time pipeline and script (sends, completions, requests, cancels, promises, connections and advances
/// of the virtual clock), runs it, and returns the log. At the end the clock runs until nothing is queued.
func runTimed(seed: UInt64) -> [String] {
    var generator = Generator(state: seed)
    let world = World(currentValue: generator.below(6))
    let scheduler = VirtualScheduler()
    var timed = TimePipelineBuilder(builder: PipelineBuilder(generator: generator, world: world), scheduler: scheduler)
    let (stream, text) = timed.pipeline()
    generator = timed.builder.generator
    let subscriber = ScriptedSubscriber.draw(&generator, world: world, cancelPercent: 15, sendPercent: 10)
    world.log.insert(contentsOf: ["pipeline \(text)", subscriber.header], at: 0)
    stream.subscribe(subscriber)
    // Sends and completions go, two times in three, to a subject the pipeline reads (when it reads one).
    let read = (0...world.subjects.count).filter { text.contains("subject\($0)") }
    for _ in 0..<generator.below(20) {
        var index = generator.below(world.subjects.count + 1)
        if !read.isEmpty, generator.chance(67) {
            index = read[generator.below(read.count)]
        }
        let step = timeMix[generator.below(timeMix.count)]
        if step == .advance {
            let stride = VirtualStride.milliseconds([0, 5, 10, 20, 30, 50, 100][generator.below(7)])
            world.log.append("> advance(by: \(stride))")
            scheduler.advance(by: stride)
            continue
        }
        world.perform(step, on: index, for: subscriber, &generator)
    }
    // Whatever is still queued runs (a subscription that hops onto the scheduler arrives at the latest here).
    // How far the clock moves is not logged: a library may keep a repeating action queued (OpenCombine's timeout).
    world.log.append("> advance to the end")
    scheduler.runToEnd()
    return world.log
}
