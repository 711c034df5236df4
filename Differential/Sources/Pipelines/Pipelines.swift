// Random pipelines for the differential check: one program, compiled against Untangle and against OpenCombine, builds
// the same pipeline for each seed, drives it with the same script on one thread, and prints every event its
// subscriber sees. run.sh compares the two outputs seed by seed. Only operators both libraries have are drawn
// (OpenCombine 0.14.0 has no merge or combineLatest), every parameter is one Combine accepts (no zero demand, no
// negative counts), and nothing depends on time or threads, so the two logs differ only where the libraries do.
//
// Usage: diff-untangle [--time | --fanin] FIRST-SEED [COUNT]   (the same for diff-opencombine; --time:
// TimePipelines.swift, --fanin: FanInPipelines.swift)
import Foundation

#if OPENCOMBINE
    import OpenCombine
#else
    import Untangle
#endif

/// SplitMix64: small, fast, and the same sequence on every platform for a seed.
struct Generator {
    var state: UInt64

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A number in 0..<bound.
    mutating func below(_ bound: Int) -> Int {
        Int(next() % UInt64(bound))
    }

    mutating func chance(_ percent: Int) -> Bool {
        below(100) < percent
    }
}

/// The pipelines' failure type.
enum PipelineError: Error, Equatable, CustomStringConvertible {
    case sent
    case thrown(Int)
    case fallback

    var description: String {
        switch self {
        case .sent: return "sent"
        case .thrown(let value): return "thrown(\(value))"
        case .fallback: return "fallback"
        }
    }
}

typealias Stream = AnyPublisher<Int, PipelineError>

extension Publisher where Output == Int {
    /// A `try` operator's stream with the pipelines' failure type again (what the closure threw, or `.fallback`).
    func typedFailure() -> Stream {
        mapError { $0 as? PipelineError ?? .fallback }.eraseToAnyPublisher()
    }
}

/// The subjects a pipeline reads from; the script sends to them by index (0 to 2: passthrough subjects, 3: the
/// current-value subject). Also holds the other subscribers of shared publishers.
final class World {
    let subjects = (0..<3).map { _ in PassthroughSubject<Int, PipelineError>() }
    let current: CurrentValueSubject<Int, PipelineError>
    var log: [String] = []
    var others: [ScriptedSubscriber] = []
    /// The promises of the pending futures, which the script fulfils by index.
    var promises: [(Result<Int, PipelineError>) -> Void] = []
    /// How to connect each `multicast(subject:)` the script connects by hand, and its connection while connected.
    var connectables: [(connect: () -> Cancellable, connection: Cancellable?)] = []

    init(currentValue: Int) {
        current = CurrentValueSubject(currentValue)
    }

    /// Sends to the subject at `index` (3: the current-value subject).
    func send(_ value: Int, to index: Int) {
        if index == 3 { current.send(value) } else { subjects[index].send(value) }
    }

    func send(completion: Subscribers.Completion<PipelineError>, to index: Int) {
        if index == 3 { current.send(completion: completion) } else { subjects[index].send(completion: completion) }
    }

    // The script's steps, each logged (`> ...`) before it runs; the draws are the generator's, in this order.

    func scriptSend(_ value: Int, to index: Int) {
        log.append("> subject\(index).send(\(value))")
        send(value, to: index)
    }

    func scriptSend(completion: Subscribers.Completion<PipelineError>, to index: Int) {
        switch completion {
        case .finished: log.append("> subject\(index).send(completion: .finished)")
        case .failure: log.append("> subject\(index).send(completion: .failure(.sent))")
        }
        send(completion: completion, to: index)
    }

    /// Runs one step of the script (drawing what it needs), on the subject at `index` for a send or a completion.
    func perform(_ step: ScriptStep, on index: Int, for subscriber: ScriptedSubscriber, _ generator: inout Generator) {
        switch step {
        case .send:
            scriptSend(generator.below(6), to: index)
        case .finish:
            scriptSend(completion: .finished, to: index)
        case .fail:
            scriptSend(completion: .failure(.sent), to: index)
        case .request:
            let demand = generator.below(3) + 1
            log.append("> request(.max(\(demand)))")
            subscriber.subscription?.request(.max(demand))
        case .cancel:
            log.append("> cancel()")
            subscriber.subscription?.cancel()
        case .fulfil:
            scriptFulfil(&generator)
        case .toggleConnection:
            scriptToggleConnection(&generator)
        case .advance:
            break
        }
    }

    /// Fulfils one of the pending futures' promises with a drawn result (nothing when there is none).
    func scriptFulfil(_ generator: inout Generator) {
        let value = generator.below(6)
        let fails = generator.chance(30)
        guard !promises.isEmpty else { return }
        let number = generator.below(promises.count)
        log.append("> promise #\(number)(\(fails ? ".failure(.thrown(\(value)))" : ".success(\(value))"))")
        promises[number](fails ? .failure(.thrown(value)) : .success(value))
    }

    /// Connects one of the hand-connected multicasts, or disconnects it when it is connected.
    func scriptToggleConnection(_ generator: inout Generator) {
        guard !connectables.isEmpty else { return }
        let number = generator.below(connectables.count)
        if let connection = connectables[number].connection {
            log.append("> disconnect #\(number)")
            connectables[number].connection = nil
            connection.cancel()
        } else {
            log.append("> connect #\(number)")
            connectables[number].connection = connectables[number].connect()
        }
    }
}

/// The steps of a script both modes share (the time mode adds advances of the clock).
enum ScriptStep {
    case send, finish, fail, request, cancel, fulfil, toggleConnection
    /// The time mode's advance of the virtual clock (World.perform leaves it to the time mode).
    case advance

    /// The synchronous mode's steps, one drawn at a time: sends are the most frequent.
    static let synchronousMix: [ScriptStep] =
        Array(repeating: .send, count: 7) + [.finish, .fail, .request, .request, .cancel, .fulfil, .toggleConnection]
}

/// Builds a random pipeline over `world`'s subjects and describes it.
struct PipelineBuilder {
    var generator: Generator
    let world: World
    var demandLabel = 0

    mutating func source() -> (Stream, String) {
        switch generator.below(20) {
        case 0, 1, 2, 3:
            let index = generator.below(world.subjects.count)
            return (world.subjects[index].eraseToAnyPublisher(), "subject\(index)")
        case 4, 5:
            return (world.current.eraseToAnyPublisher(), "subject3(current)")
        case 6:
            let values = (0..<generator.below(5)).map { _ in generator.below(6) }
            return (
                values.publisher.setFailureType(to: PipelineError.self).eraseToAnyPublisher(), "\(values).publisher"
            )
        case 7:
            return sequenceOperator()
        case 8:
            let value = generator.below(6)
            return (Just(value).setFailureType(to: PipelineError.self).eraseToAnyPublisher(), "Just(\(value))")
        case 9:
            return (Empty<Int, PipelineError>().eraseToAnyPublisher(), "Empty")
        case 10:
            return (Fail<Int, PipelineError>(error: .sent).eraseToAnyPublisher(), "Fail(.sent)")
        case 11:
            let (inner, innerText) = source()
            return (Deferred { inner }.eraseToAnyPublisher(), "Deferred{\(innerText)}")
        case 12:
            // A future resolved while it is created: every subscriber gets the stored result.
            let value = generator.below(6)
            let fails = generator.chance(30)
            let future = Future<Int, PipelineError> { promise in
                promise(fails ? .failure(.thrown(value)) : .success(value))
            }
            return (future.eraseToAnyPublisher(), fails ? "Future(failure \(value))" : "Future(\(value))")
        case 13:
            let values = (0..<generator.below(4)).map { _ in generator.below(6) }
            let fails = generator.chance(40)
            return (
                Record(output: values, completion: fails ? .failure(.sent) : .finished).eraseToAnyPublisher(),
                "Record(\(values), \(fails ? "failure" : "finished"))"
            )
        case 14:
            let value: Int? = generator.chance(60) ? generator.below(6) : nil
            return (
                value.publisher.setFailureType(to: PipelineError.self).eraseToAnyPublisher(),
                "Optional(\(value.map(String.init) ?? "nil")).publisher"
            )
        case 15:
            let value = generator.below(6)
            let result: Result<Int, PipelineError> = generator.chance(30) ? .failure(.thrown(value)) : .success(value)
            return (result.publisher.eraseToAnyPublisher(), "Result(\(result)).publisher")
        case 16, 17:
            return shared()
        case 18:
            // A future the script resolves (or never does).
            let world = self.world
            let number = world.promises.count
            return (
                Future<Int, PipelineError> { world.promises.append($0) }.eraseToAnyPublisher(),
                "Future(pending #\(number))"
            )
        default:
            // A multicast the script connects and disconnects by hand.
            let (upstream, upstreamText) = pipeline(depth: 1)
            let connectable = upstream.multicast(subject: PassthroughSubject())
            let number = world.connectables.count
            world.connectables.append((connect: { connectable.connect() }, connection: nil))
            return (connectable.eraseToAnyPublisher(), "\(upstreamText).multicast(PassthroughSubject)#\(number)")
        }
    }

    /// `share()` or `multicast(subject:).autoconnect()` over a short pipeline, with another subscriber (its log lines
    /// start with `~ otherN`) subscribed before the pipeline's own subscriber; it may ask for a limited demand and
    /// cancel at a value.
    mutating func shared() -> (Stream, String) {
        let (upstream, upstreamText) = pipeline(depth: 1)
        let published: Stream
        let text: String
        if generator.chance(50) {
            published = upstream.share().eraseToAnyPublisher()
            text = "\(upstreamText).share()"
        } else {
            published = upstream.multicast(subject: PassthroughSubject()).autoconnect().eraseToAnyPublisher()
            text = "\(upstreamText).multicast(PassthroughSubject).autoconnect()"
        }
        let demands: [Subscribers.Demand] = [.max(1), .max(2), .unlimited]
        let other = ScriptedSubscriber(
            world: world, label: "~ other\(world.others.count + 1) ", initial: demands[generator.below(demands.count)],
            perValue: generator.chance(50) ? .none : .max(1), cancelAtValue: generator.chance(30) ? 1 : nil)
        world.others.append(other)
        published.subscribe(other)
        return (published, "\(text)[other\(world.others.count): \(other.describe)]")
    }

    /// An operator applied to a sequence publisher before it is erased: Publishers.Sequence's own overloads.
    mutating func sequenceOperator() -> (Stream, String) {
        let values = (0..<generator.below(5)).map { _ in generator.below(6) }
        let sequence = values.publisher
        let k = generator.below(3) + 1
        let v = generator.below(6)
        let text = "\(values).publisher"
        func erased<P: Publisher>(_ publisher: P, _ name: String) -> (Stream, String)
        where P.Output == Int, P.Failure == Never {
            (publisher.setFailureType(to: PipelineError.self).eraseToAnyPublisher(), text + name + "(sequence)")
        }
        switch generator.below(16) {
        case 0: return erased(sequence.map { $0 + 1 }, ".map{x+1}")
        case 1: return erased(sequence.filter { $0 % 2 == 0 }, ".filter{even}")
        case 2: return erased(sequence.compactMap { $0 == v ? nil : $0 }, ".compactMap{!=\(v)}")
        case 3: return erased(sequence.dropFirst(k), ".dropFirst(\(k))")
        case 4: return erased(sequence.prefix(k), ".prefix(\(k))")
        case 5: return erased(sequence.removeDuplicates(), ".removeDuplicates()")
        case 6: return erased(sequence.first(), ".first()")
        case 7: return erased(sequence.last(), ".last()")
        case 8: return erased(sequence.min(), ".min()")
        case 9: return erased(sequence.count(), ".count()")
        case 10: return erased(sequence.contains(v).map { $0 ? 1 : 0 }, ".contains(\(v))")
        case 11: return erased(sequence.reduce(0, +), ".reduce(0,+)")
        case 12: return erased(sequence.scan(0, +), ".scan(0,+)")
        case 13: return erased(sequence.output(at: k - 1), ".output(at:\(k - 1))")
        case 14: return erased(sequence.append(v, v), ".append(\(v),\(v))")
        default: return erased(sequence.prepend([v]), ".prepend([\(v)])")
        }
    }

    /// A pipeline of up to `depth` operators over a source.
    mutating func pipeline(depth: Int) -> (Stream, String) {
        var (stream, text) = source()
        for _ in 0..<generator.below(depth + 1) {
            (stream, text) = apply(to: stream, text, depth: depth - 1)
        }
        return (stream, text)
    }

    // swift-format-ignore: FunctionBodyLength
    mutating func apply(to upstream: Stream, _ text: String, depth: Int) -> (Stream, String) {
        let k = generator.below(4) + 1
        let v = generator.below(6)
        switch generator.below(60) {
        case 0: return (upstream.map { $0 * 2 + 1 }.eraseToAnyPublisher(), text + ".map{2x+1}")
        case 1: return (upstream.filter { $0 % 2 == 0 }.eraseToAnyPublisher(), text + ".filter{even}")
        case 2:
            return (upstream.compactMap { $0 == v ? nil : $0 }.eraseToAnyPublisher(), text + ".compactMap{!=\(v)}")
        case 3: return (upstream.scan(0, +).eraseToAnyPublisher(), text + ".scan(0,+)")
        case 4: return (upstream.reduce(0, +).eraseToAnyPublisher(), text + ".reduce(0,+)")
        case 5: return (upstream.removeDuplicates().eraseToAnyPublisher(), text + ".removeDuplicates()")
        case 6: return (upstream.prefix(k).eraseToAnyPublisher(), text + ".prefix(\(k))")
        case 7: return (upstream.dropFirst(k).eraseToAnyPublisher(), text + ".dropFirst(\(k))")
        case 8: return (upstream.prefix { $0 != v }.eraseToAnyPublisher(), text + ".prefix{!=\(v)}")
        case 9: return (upstream.drop { $0 != v }.eraseToAnyPublisher(), text + ".drop{!=\(v)}")
        case 10: return (upstream.first().eraseToAnyPublisher(), text + ".first()")
        case 11: return (upstream.last().eraseToAnyPublisher(), text + ".last()")
        case 12: return (upstream.first { $0 > v }.eraseToAnyPublisher(), text + ".first{>\(v)}")
        case 13: return (upstream.count().eraseToAnyPublisher(), text + ".count()")
        case 14: return (upstream.min().eraseToAnyPublisher(), text + ".min()")
        case 15: return (upstream.max().eraseToAnyPublisher(), text + ".max()")
        case 16: return (upstream.contains(v).map { $0 ? 1 : 0 }.eraseToAnyPublisher(), text + ".contains(\(v))")
        case 17:
            return (
                upstream.allSatisfy { $0 < v }.map { $0 ? 1 : 0 }.eraseToAnyPublisher(), text + ".allSatisfy{<\(v)}"
            )
        case 18:
            return (upstream.ignoreOutput().map { _ -> Int in }.eraseToAnyPublisher(), text + ".ignoreOutput()")
        case 19:
            return (upstream.collect(k).map { $0.reduce(0, +) }.eraseToAnyPublisher(), text + ".collect(\(k)).sum")
        case 20: return (upstream.collect().map { $0.count }.eraseToAnyPublisher(), text + ".collect().count")
        case 21: return (upstream.replaceEmpty(with: 9).eraseToAnyPublisher(), text + ".replaceEmpty(9)")
        case 22:
            return (
                upstream.replaceError(with: 7).setFailureType(to: PipelineError.self).eraseToAnyPublisher(),
                text + ".replaceError(7)"
            )
        case 23:
            return (
                upstream.tryMap { value -> Int in
                    if value == v { throw PipelineError.thrown(value) }
                    return value + 10
                }
                .typedFailure(),
                text + ".tryMap{throw at \(v)}"
            )
        case 24:
            return (
                upstream.tryFilter { value in
                    if value == v { throw PipelineError.thrown(value) }
                    return value != 1
                }
                .typedFailure(),
                text + ".tryFilter{throw at \(v)}"
            )
        case 25: return (upstream.output(at: k - 1).eraseToAnyPublisher(), text + ".output(at:\(k - 1))")
        case 26: return (upstream.output(in: 1...k).eraseToAnyPublisher(), text + ".output(in:1...\(k))")
        case 27:
            let (other, otherText) = pipeline(depth: depth)
            return (upstream.append(other).eraseToAnyPublisher(), text + ".append(\(otherText))")
        case 28:
            let (other, otherText) = pipeline(depth: depth)
            return (upstream.prepend(other).eraseToAnyPublisher(), text + ".prepend(\(otherText))")
        case 29:
            let (other, otherText) = pipeline(depth: depth)
            return (upstream.catch { _ in other }.eraseToAnyPublisher(), text + ".catch{\(otherText)}")
        case 30: return (upstream.retry(k - 1).eraseToAnyPublisher(), text + ".retry(\(k - 1))")
        case 31:
            let (other, otherText) = pipeline(depth: depth)
            return (upstream.zip(other) { $0 * 10 + $1 }.eraseToAnyPublisher(), text + ".zip(\(otherText))")
        case 32:
            let inner = innerMaker()
            let limit: Subscribers.Demand = generator.chance(50) ? .unlimited : .max(k)
            return (
                upstream.flatMap(maxPublishers: limit) { inner.make($0) }.eraseToAnyPublisher(),
                text + ".flatMap(max: \(limit)){\(inner.text)}"
            )
        case 33:
            let inner = innerMaker()
            return (
                upstream.map { inner.make($0) }.switchToLatest().eraseToAnyPublisher(),
                text + ".map{\(inner.text)}.switchToLatest()"
            )
        case 34:
            let (other, otherText) = pipeline(depth: depth)
            return (
                upstream.drop(untilOutputFrom: other).eraseToAnyPublisher(),
                text + ".drop(untilOutputFrom: \(otherText))"
            )
        case 35:
            let (other, otherText) = pipeline(depth: depth)
            return (
                upstream.prefix(untilOutputFrom: other).eraseToAnyPublisher(),
                text + ".prefix(untilOutputFrom: \(otherText))"
            )
        case 36:
            let prefetch: Publishers.PrefetchStrategy = generator.chance(50) ? .byRequest : .keepFull
            let full: Publishers.BufferingStrategy<PipelineError> = generator.chance(50) ? .dropOldest : .dropNewest
            return (
                upstream.buffer(size: k, prefetch: prefetch, whenFull: full).eraseToAnyPublisher(),
                text + ".buffer(\(k), \(prefetch == .byRequest ? "byRequest" : "keepFull"), \(full.name))"
            )
        case 37:
            return (
                upstream.tryScan(0) { sum, value in
                    if value == v { throw PipelineError.thrown(value) }
                    return sum + value
                }
                .typedFailure(),
                text + ".tryScan{throw at \(v)}"
            )
        case 38:
            return (
                upstream.replaceError(with: 3).setFailureType(to: PipelineError.self).eraseToAnyPublisher(),
                text + ".replaceError(3).setFailureType"
            )
        case 39:
            return (
                upstream.mapError { _ in PipelineError.fallback }.eraseToAnyPublisher(), text + ".mapError{fallback}"
            )
        case 40, 41, 42:
            // What the operators after this point ask of what comes before it.
            demandLabel += 1
            let label = demandLabel
            let world = self.world
            return (
                upstream.handleEvents(receiveRequest: { world.log.append("~ asks #\(label) \(demandText($0))") })
                    .eraseToAnyPublisher(),
                text + ".logRequests#\(label)"
            )
        case 43:
            if k % 2 == 0 {
                return (
                    upstream.tryCatch { _ -> Stream in throw PipelineError.thrown(k) }
                        .typedFailure(),
                    text + ".tryCatch{throw}"
                )
            }
            let (other, otherText) = pipeline(depth: depth)
            return (
                upstream.tryCatch { _ in other }.typedFailure(),
                text + ".tryCatch{\(otherText)}"
            )
        case 44:
            return (
                upstream.tryDrop { value in
                    if value == v { throw PipelineError.thrown(value) }
                    return value % 2 == 0
                }
                .typedFailure(),
                text + ".tryDrop{even, throw at \(v)}"
            )
        case 45:
            return (
                upstream.tryPrefix { value in
                    if value == v { throw PipelineError.thrown(value) }
                    return value != 1
                }
                .typedFailure(),
                text + ".tryPrefix{!=1, throw at \(v)}"
            )
        case 46:
            return (
                upstream.tryReduce(0) { sum, value in
                    if value == v { throw PipelineError.thrown(value) }
                    return sum + value
                }
                .typedFailure(),
                text + ".tryReduce{throw at \(v)}"
            )
        case 47:
            return (
                upstream.tryCompactMap { value -> Int? in
                    if value == v { throw PipelineError.thrown(value) }
                    return value == 1 ? nil : value
                }
                .typedFailure(),
                text + ".tryCompactMap{nil at 1, throw at \(v)}"
            )
        case 48:
            return (
                upstream.tryRemoveDuplicates { previous, value in
                    if value == v { throw PipelineError.thrown(value) }
                    return previous == value
                }
                .typedFailure(),
                text + ".tryRemoveDuplicates{throw at \(v)}"
            )
        case 49:
            return (
                upstream.tryFirst { value in
                    if value == v { throw PipelineError.thrown(value) }
                    return value > k
                }
                .typedFailure(),
                text + ".tryFirst{>\(k), throw at \(v)}"
            )
        case 50:
            return (
                upstream.tryLast { value in
                    if value == v { throw PipelineError.thrown(value) }
                    return value > k
                }
                .typedFailure(),
                text + ".tryLast{>\(k), throw at \(v)}"
            )
        case 51:
            return (
                upstream.tryContains { value in
                    if value == v { throw PipelineError.thrown(value) }
                    return value == k
                }
                .map { $0 ? 1 : 0 }.typedFailure(),
                text + ".tryContains{==\(k), throw at \(v)}"
            )
        case 52:
            return (
                upstream.tryAllSatisfy { value in
                    if value == v { throw PipelineError.thrown(value) }
                    return value < 5
                }
                .map { $0 ? 1 : 0 }.typedFailure(),
                text + ".tryAllSatisfy{<5, throw at \(v)}"
            )
        case 53:
            return (
                upstream.map { $0 == v ? nil : $0 }.replaceNil(with: 8).eraseToAnyPublisher(),
                text + ".map{nil at \(v)}.replaceNil(8)"
            )
        case 54:
            let values = (0..<k).map { _ in generator.below(6) }
            return (upstream.append(values).eraseToAnyPublisher(), text + ".append(\(values))")
        case 55:
            let values = (0..<k).map { _ in generator.below(6) }
            return (upstream.prepend(values).eraseToAnyPublisher(), text + ".prepend(\(values))")
        case 56:
            return (
                upstream.tryMax { first, second in
                    if second == v { throw PipelineError.thrown(second) }
                    return first < second
                }
                .typedFailure(),
                text + ".tryMax{throw at \(v)}"
            )
        case 57:
            let inner = innerMaker()
            let limit: Subscribers.Demand = generator.chance(50) ? .unlimited : .max(k)
            return (
                upstream.flatMap(maxPublishers: limit) { inner.make($0) }.eraseToAnyPublisher(),
                text + ".flatMap(max: \(limit)){\(inner.text)}"
            )
        default:
            let inner = innerMaker()
            return (
                upstream.map { inner.make($0) }.switchToLatest().eraseToAnyPublisher(),
                text + ".map{\(inner.text)}.switchToLatest()"
            )
        }
    }

    /// What flatMap and switchToLatest map each value to.
    struct InnerMaker {
        let text: String
        let make: (Int) -> Stream
    }

    mutating func innerMaker() -> InnerMaker {
        let world = self.world
        switch generator.below(7) {
        case 4:
            return InnerMaker(text: "[x].publisher.append(Fail)") {
                Just($0).setFailureType(to: PipelineError.self).append(Fail(error: .thrown($0))).eraseToAnyPublisher()
            }
        case 5:
            return InnerMaker(text: "subject3(current).map{x*100+$0}") { x in
                world.current.map { x * 100 + $0 }.eraseToAnyPublisher()
            }
        case 0:
            return InnerMaker(text: "Just(x)") { Just($0).setFailureType(to: PipelineError.self).eraseToAnyPublisher() }
        case 1:
            return InnerMaker(text: "[x,x+1].publisher") {
                [$0, $0 + 1].publisher.setFailureType(to: PipelineError.self).eraseToAnyPublisher()
            }
        case 2:
            return InnerMaker(text: "x odd ? Fail : Just(x)") {
                $0 % 2 == 1
                    ? Fail(error: .thrown($0)).eraseToAnyPublisher()
                    : Just($0).setFailureType(to: PipelineError.self).eraseToAnyPublisher()
            }
        default:
            let index = generator.below(world.subjects.count)
            return InnerMaker(text: "subject\(index).map{x*100+$0}") { x in
                world.subjects[index].map { x * 100 + $0 }.eraseToAnyPublisher()
            }
        }
    }
}

extension Publishers.BufferingStrategy {
    var name: String {
        switch self {
        case .dropOldest: return "dropOldest"
        case .dropNewest: return "dropNewest"
        case .customError: return "customError"
        @unknown default: return "unknown"
        }
    }
}

/// A subscriber whose demand follows the script: what it asks for at subscription, after each value, and when it
/// cancels or sends to a subject (reentrantly) from inside a delivery. It logs every signal it receives, each line
/// after `label` (empty for the pipeline's own subscriber, `~ otherN ` for another subscriber of a shared publisher).
final class ScriptedSubscriber: Subscriber {
    typealias Input = Int
    typealias Failure = PipelineError

    let world: World
    let label: String
    let initial: Subscribers.Demand
    let perValue: Subscribers.Demand
    let cancelAtValue: Int?
    /// At which value it sends what to which subject (3: the current-value subject).
    let sendAtValue: (at: Int, subject: Int, value: Int)?
    var subscription: Subscription?
    var values = 0

    init(
        world: World, label: String = "", initial: Subscribers.Demand, perValue: Subscribers.Demand,
        cancelAtValue: Int?, sendAtValue: (at: Int, subject: Int, value: Int)? = nil
    ) {
        self.world = world
        self.label = label
        self.initial = initial
        self.perValue = perValue
        self.cancelAtValue = cancelAtValue
        self.sendAtValue = sendAtValue
    }

    /// The pipeline's own subscriber, drawn: its first demand, its demand per value, whether it cancels at a value
    /// (`cancelPercent`) and whether it sends to a subject from inside a delivery (`sendPercent`).
    static func draw(_ generator: inout Generator, world: World, cancelPercent: Int, sendPercent: Int)
        -> ScriptedSubscriber
    {
        let demands: [Subscribers.Demand] = [.none, .max(1), .max(2), .max(3), .unlimited]
        let initial = demands[generator.below(demands.count)]
        let perValue: Subscribers.Demand = generator.chance(50) ? .none : .max(1)
        let cancelAtValue = generator.chance(cancelPercent) ? generator.below(3) + 1 : nil
        let sendAtValue =
            generator.chance(sendPercent)
            ? (at: generator.below(3) + 1, subject: generator.below(4), value: generator.below(6)) : nil
        return ScriptedSubscriber(
            world: world, initial: initial, perValue: perValue, cancelAtValue: cancelAtValue, sendAtValue: sendAtValue)
    }

    var describe: String {
        "initial \(demandText(initial)), per value \(demandText(perValue)), cancels at value "
            + (cancelAtValue.map(String.init) ?? "never")
    }

    /// The log's second line: the pipeline's subscriber's demand, cancel and reentrant send.
    var header: String {
        "subscriber \(describe)"
            + (sendAtValue.map { ", sends \($0.value) to subject\($0.subject) at value \($0.at)" } ?? "")
    }

    func receive(subscription: Subscription) {
        world.log.append(label + "subscription")
        self.subscription = subscription
        if initial > .none {
            subscription.request(initial)
        }
    }

    func receive(_ input: Int) -> Subscribers.Demand {
        world.log.append(label + "value \(input)")
        values += 1
        if let send = sendAtValue, send.at == values {
            world.log.append("~ (sends \(send.value) to subject\(send.subject) in receive)")
            world.send(send.value, to: send.subject)
        }
        if values == cancelAtValue {
            world.log.append(label + "(cancels in receive)")
            subscription?.cancel()
            return .none
        }
        return perValue
    }

    func receive(completion: Subscribers.Completion<Failure>) {
        switch completion {
        case .finished: world.log.append(label + "finished")
        case .failure(let error): world.log.append(label + "failure \(error)")
        }
    }
}

func demandText(_ demand: Subscribers.Demand) -> String {
    demand == .unlimited ? "unlimited" : "max(\(demand.max ?? 0))"
}

/// Builds seed's pipeline and script, runs it, and returns the log.
func run(seed: UInt64) -> [String] {
    var generator = Generator(state: seed)
    let world = World(currentValue: generator.below(6))
    var builder = PipelineBuilder(generator: generator, world: world)
    let (stream, text) = builder.pipeline(depth: 3)
    generator = builder.generator
    let subscriber = ScriptedSubscriber.draw(&generator, world: world, cancelPercent: 20, sendPercent: 15)
    // The header comes first, before what other subscribers of a shared publisher saw while the pipeline was built.
    world.log.insert(
        contentsOf: [
            "pipeline \(text)",
            subscriber.header,
        ], at: 0)
    stream.subscribe(subscriber)
    for _ in 0..<generator.below(14) {
        let index = generator.below(world.subjects.count + 1)
        let step = ScriptStep.synchronousMix[generator.below(ScriptStep.synchronousMix.count)]
        world.perform(step, on: index, for: subscriber, &generator)
    }
    return world.log
}

// `--time` or `--fanin` first: the time mode (TimePipelines.swift) or the fan-in mode (FanInPipelines.swift), each
// with its own seeds.
var arguments = Array(CommandLine.arguments.dropFirst())
let timeMode = arguments.first == "--time"
let fanInMode = arguments.first == "--fanin"
if timeMode || fanInMode { arguments.removeFirst() }
let first = arguments.count > 0 ? UInt64(arguments[0]) ?? 0 : 0
let count = arguments.count > 1 ? UInt64(arguments[1]) ?? 1 : 1
for seed in first..<(first + count) {
    // The header reaches the pipe before the seed runs, and its log before the next one: if a library stops the
    // program on a seed, the last header names it and the logs before it are complete (run.sh goes on after it).
    print("== seed \(seed)")
    fflush(stdout)
    for line in timeMode ? runTimed(seed: seed) : fanInMode ? runFanIn(seed: seed) : run(seed: seed) {
        print(line)
    }
    fflush(stdout)
}
