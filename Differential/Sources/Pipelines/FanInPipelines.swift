// The fan-in mode of the differential check (`diff-untangle --fanin FIRST COUNT`, the same for diff-opencombine):
// random pipelines whose core combines two to four of the synchronous generator's subjects and sources, with the
// synchronous generator's operators before and after it (its code is called, so its own seeds draw what they did).
//
// OpenCombine 0.14.0 has zip (two to four publishers) but no merge, MergeMany or combineLatest. So each seed is of
// one of two families, drawn first:
// - compared: zip, `[a, b, ...].publisher.flatMap(maxPublishers:) { $0 }` (the merge both libraries have),
//   flatMap and switchToLatest over subjects, nested; both programs run it and compare.py compares the logs;
// - Untangle only: merge(with:), Publishers.Merge, Publishers.MergeMany and combineLatest (with and without a
//   transform), nested with the compared kinds; diff-opencombine prints the header and `(not in OpenCombine 0.14.0)`
//   without running it; compare.py checks Untangle's log against the rules, and diff-untangle runs the seed's twin
//   (another merge overload, combineLatest's transform moved to a map or into it), which must log the same.
#if OPENCOMBINE
    import OpenCombine
#else
    import Untangle
#endif

/// What diff-opencombine prints for a seed of the Untangle-only family (compare.py then compares nothing).
let notInOpenCombine = "(not in OpenCombine 0.14.0)"

/// Builds a random fan-in pipeline over the synchronous generator's subjects and sources.
struct FanInPipelineBuilder {
    var builder: PipelineBuilder
    /// Whether this seed may draw the fan-ins OpenCombine 0.14.0 lacks (merge, MergeMany, combineLatest).
    let untangleOnly: Bool
    /// Whether to build the twin of those fan-ins: the next merge overload (of `untangleMerge`'s three) and
    /// combineLatest's transform moved to a map after it (or into it), which Combine makes equivalent.
    let twin: Bool
    /// The subjects (0 to 3) the fan-ins drawn so far read: members take other ones while there are some, since two
    /// subscribers of one subject fall under compare.py's first rule of thumb and are not compared.
    var taken: Set<Int> = []

    init(builder: PipelineBuilder, untangleOnly: Bool, twin: Bool) {
        self.builder = builder
        self.untangleOnly = untangleOnly
        self.twin = twin
    }

    var world: World { builder.world }

    func subject(_ index: Int) -> Stream {
        index == 3 ? world.current.eraseToAnyPublisher() : world.subjects[index].eraseToAnyPublisher()
    }

    func subjectText(_ index: Int) -> String {
        index == 3 ? "subject3(current)" : "subject\(index)"
    }

    /// A subject no fan-in member took yet, or nil when all four are taken.
    mutating func freeSubject() -> Int? {
        let free = (0...3).filter { !taken.contains($0) }
        guard !free.isEmpty else { return nil }
        let index = free[builder.generator.below(free.count)]
        taken.insert(index)
        return index
    }

    /// One input of a fan-in: mostly a subject (sometimes with one of the synchronous generator's operators after
    /// it), else a nested fan-in (while `depth` allows) or a short pipeline of the synchronous generator.
    mutating func member(depth: Int) -> (Stream, String) {
        let kind = builder.generator.below(10)
        if kind < 6, let index = freeSubject() {
            let (stream, text) = (subject(index), subjectText(index))
            return builder.generator.chance(30) ? builder.apply(to: stream, text, depth: 0) : (stream, text)
        }
        if kind < 8, depth > 0 {
            // A nested fan-in takes subjects from the same pool: the outer one's stay taken.
            return fanIn(depth: depth - 1)
        }
        return builder.pipeline(depth: 1)
    }

    /// Two to four members.
    mutating func members(depth: Int) -> [(Stream, String)] {
        (0..<(builder.generator.below(3) + 2)).map { _ in member(depth: depth) }
    }

    /// A fan-in over two to four members; `depth` bounds how deep fan-ins nest in it.
    mutating func fanIn(depth: Int) -> (Stream, String) {
        if untangleOnly {
            switch builder.generator.below(10) {
            case 0: return zip(members(depth: depth))
            case 1: return flatMerge(members(depth: depth))
            case 2: return switchOver(member(depth: depth))
            case 3, 4, 5, 6: return merge(members(depth: depth))
            default: return combineLatest(members(depth: depth))
            }
        }
        switch builder.generator.below(5) {
        case 0, 1: return zip(members(depth: depth))
        case 2, 3: return flatMerge(members(depth: depth))
        default: return switchOver(member(depth: depth))
        }
    }

    /// zip of two to four members, the tuple joined by its transform or by a map after it.
    mutating func zip(_ members: [(Stream, String)]) -> (Stream, String) {
        let transform = builder.generator.chance(50)
        let (a, aText) = members[0]
        let b = members[1].0
        let others = members.dropFirst().map(\.1).joined(separator: ", ")
        let text = "\(aText).zip(\(others))" + (transform ? "{joined}" : ".map{joined}")
        switch members.count {
        case 2:
            return transform
                ? (a.zip(b) { $0 * 10 + $1 }.eraseToAnyPublisher(), text)
                : (a.zip(b).map { $0 * 10 + $1 }.eraseToAnyPublisher(), text)
        case 3:
            let c = members[2].0
            return transform
                ? (a.zip(b, c) { $0 * 100 + $1 * 10 + $2 }.eraseToAnyPublisher(), text)
                : (a.zip(b, c).map { $0 * 100 + $1 * 10 + $2 }.eraseToAnyPublisher(), text)
        default:
            let (c, d) = (members[2].0, members[3].0)
            return transform
                ? (a.zip(b, c, d) { $0 * 1000 + $1 * 100 + $2 * 10 + $3 }.eraseToAnyPublisher(), text)
                : (a.zip(b, c, d).map { $0 * 1000 + $1 * 100 + $2 * 10 + $3 }.eraseToAnyPublisher(), text)
        }
    }

    /// The merge both libraries have: a sequence of the members, flattened with a drawn limit.
    mutating func flatMerge(_ members: [(Stream, String)]) -> (Stream, String) {
        let limit: Subscribers.Demand = builder.generator.chance(50) ? .unlimited : .max(builder.generator.below(2) + 1)
        let text = "[\(members.map(\.1).joined(separator: ", "))].publisher.flatMap(max: \(demandText(limit))){$0}"
        let streams = members.map(\.0)
        return (
            streams.publisher.setFailureType(to: PipelineError.self).flatMap(maxPublishers: limit) { $0 }
                .eraseToAnyPublisher(),
            text
        )
    }

    /// flatMap or switchToLatest over subjects: each value of `upstream` picks a subject (or, in the Untangle-only
    /// family, a merge or combineLatest of two subjects) whose values it tags with itself.
    mutating func switchOver(_ upstream: (Stream, String)) -> (Stream, String) {
        let (stream, text) = upstream
        let world = self.world
        func pick(_ x: Int) -> Stream {
            x % 4 == 3 ? world.current.eraseToAnyPublisher() : world.subjects[x % 4].eraseToAnyPublisher()
        }
        let (i, j) = (builder.generator.below(4), builder.generator.below(4))
        let twin = self.twin
        let inner: (text: String, make: (Int) -> Stream)
        switch builder.generator.below(untangleOnly ? 5 : 3) {
        case 0:
            inner = (
                "subject0|subject1|subject2|subject3(current)[x%4].map{x*100+$0}",
                { x in pick(x).map { x * 100 + $0 }.eraseToAnyPublisher() }
            )
        case 1:
            inner = (
                "subject\(i).zip(subject\(j)){x*100+a*10+b}",
                { x in pick(i).zip(pick(j)) { x * 100 + $0 * 10 + $1 }.eraseToAnyPublisher() }
            )
        case 2:
            inner = ("subject\(i).map{x*100+$0}", { x in pick(i).map { x * 100 + $0 }.eraseToAnyPublisher() })
        case 3:
            inner = (
                "subject\(i).merge(with: subject\(j)).map{x*100+$0}",
                { x in untangleMerge([pick(i), pick(j)], kind: twin ? 1 : 0).map { x * 100 + $0 }.eraseToAnyPublisher()
                }
            )
        default:
            inner = (
                "subject\(i).combineLatest(subject\(j)){x*100+a*10+b}",
                { x in
                    untangleCombineLatest([pick(i), pick(j)], transform: !twin).map { x * 100 + $0 }
                        .eraseToAnyPublisher()
                }
            )
        }
        if builder.generator.chance(50) {
            return (
                stream.map { inner.make($0) }.switchToLatest().eraseToAnyPublisher(),
                text + ".map{\(inner.text)}.switchToLatest()"
            )
        }
        let limit: Subscribers.Demand = builder.generator.chance(50) ? .unlimited : .max(builder.generator.below(2) + 1)
        return (
            stream.flatMap(maxPublishers: limit) { inner.make($0) }.eraseToAnyPublisher(),
            text + ".flatMap(max: \(demandText(limit))){\(inner.text)}"
        )
    }

    /// merge of two to four members: Publishers.Merge, merge(with:) (MergeMany for members of one type, Merge3,
    /// Merge4), Merge's own merge(with:), or Publishers.MergeMany.
    mutating func merge(_ members: [(Stream, String)]) -> (Stream, String) {
        let kind = builder.generator.below(3)
        let names = members.map(\.1)
        let text: String
        switch kind {
        case 0 where members.count == 3:
            text = "Publishers.Merge(\(names[0]), \(names[1])).merge(with: \(names[2]))"
        case 0:
            text = "\(names[0]).merge(with: \(names.dropFirst().joined(separator: ", ")))"
        case 1:
            text = "Publishers.MergeMany(\(names.joined(separator: ", ")))"
        default:
            text =
                (members.count == 2 ? "Publishers.Merge" : "Publishers.Merge\(members.count)")
                + "(\(names.joined(separator: ", ")))"
        }
        return (untangleMerge(members.map(\.0), kind: twin ? (kind + 1) % 3 : kind), text)
    }

    /// combineLatest of two to four members, the tuple joined by its transform or by a map after it.
    mutating func combineLatest(_ members: [(Stream, String)]) -> (Stream, String) {
        let transform = builder.generator.chance(50)
        let names = members.map(\.1)
        let text =
            "\(names[0]).combineLatest(\(names.dropFirst().joined(separator: ", ")))"
            + (transform ? "{joined}" : ".map{joined}")
        return (untangleCombineLatest(members.map(\.0), transform: transform != twin), text)
    }

    /// After the fan-in: one of the synchronous generator's operators, `collect()` of everything (its values hashed
    /// in order), or flatMap/switchToLatest over subjects.
    mutating func after(_ upstream: (Stream, String)) -> (Stream, String) {
        let (stream, text) = upstream
        switch builder.generator.below(10) {
        case 0, 1:
            return (
                stream.collect().map { values in values.reduce(0) { hash, value in hash &* 31 &+ value } }
                    .eraseToAnyPublisher(),
                text + ".collect().hash"
            )
        case 2, 3:
            return switchOver(upstream)
        default:
            return builder.apply(to: stream, text, depth: 1)
        }
    }
}

#if OPENCOMBINE
    // The Untangle-only family is drawn in both programs but run only by diff-untangle; here its fan-ins are
    // placeholders that are never subscribed.
    func untangleMerge(_ streams: [Stream], kind: Int) -> Stream {
        Empty().eraseToAnyPublisher()
    }

    func untangleCombineLatest(_ streams: [Stream], transform: Bool) -> Stream {
        Empty().eraseToAnyPublisher()
    }
#else
    /// The merge `kind` (as FanInPipelineBuilder.merge draws it) of two to four streams.
    func untangleMerge(_ streams: [Stream], kind: Int) -> Stream {
        let (a, b) = (streams[0], streams[1])
        switch (kind, streams.count) {
        case (0, 2): return a.merge(with: b).eraseToAnyPublisher()
        case (0, 3): return Publishers.Merge(a, b).merge(with: streams[2]).eraseToAnyPublisher()
        case (0, _): return a.merge(with: b, streams[2], streams[3]).eraseToAnyPublisher()
        case (1, _): return Publishers.MergeMany(streams).eraseToAnyPublisher()
        case (_, 2): return Publishers.Merge(a, b).eraseToAnyPublisher()
        case (_, 3): return Publishers.Merge3(a, b, streams[2]).eraseToAnyPublisher()
        default: return Publishers.Merge4(a, b, streams[2], streams[3]).eraseToAnyPublisher()
        }
    }

    /// combineLatest of two to four streams, joined as digits by its transform or by a map after it.
    func untangleCombineLatest(_ streams: [Stream], transform: Bool) -> Stream {
        let (a, b) = (streams[0], streams[1])
        switch streams.count {
        case 2:
            return transform
                ? a.combineLatest(b) { $0 * 10 + $1 }.eraseToAnyPublisher()
                : a.combineLatest(b).map { $0 * 10 + $1 }.eraseToAnyPublisher()
        case 3:
            let c = streams[2]
            return transform
                ? a.combineLatest(b, c) { $0 * 100 + $1 * 10 + $2 }.eraseToAnyPublisher()
                : a.combineLatest(b, c).map { $0 * 100 + $1 * 10 + $2 }.eraseToAnyPublisher()
        default:
            let (c, d) = (streams[2], streams[3])
            return transform
                ? a.combineLatest(b, c, d) { $0 * 1000 + $1 * 100 + $2 * 10 + $3 }.eraseToAnyPublisher()
                : a.combineLatest(b, c, d).map { $0 * 1000 + $1 * 100 + $2 * 10 + $3 }.eraseToAnyPublisher()
        }
    }
#endif

/// Builds seed's fan-in pipeline and script, runs it (diff-opencombine: only the compared family), and returns the
/// log. The script has 4 to 27 steps (a fan-in needs more sends than one subject); sends and completions go, four
/// times in five, to a subject the pipeline reads; a fifth of the requests ask for `.unlimited`.
func runFanIn(seed: UInt64) -> [String] {
    let (log, untangleOnly) = runFanIn(seed: seed, twin: false)
    #if !OPENCOMBINE
        // What OpenCombine cannot check, Untangle's twin construction does: the same draws, script and subjects,
        // another merge overload and combineLatest's transform moved, must log the same.
        if untangleOnly, runFanIn(seed: seed, twin: true).log != log {
            return log + [twinDiffers]
        }
    #endif
    return log
}

/// The last line of an Untangle-only seed's log when its twin construction logs otherwise (compare.py fails on it).
let twinDiffers = "(the twin construction logs otherwise)"

/// Builds seed's pipeline (or its twin) and script, runs it; returns the log and whether the seed is Untangle-only.
func runFanIn(seed: UInt64, twin: Bool) -> (log: [String], untangleOnly: Bool) {
    var generator = Generator(state: seed)
    let world = World(currentValue: generator.below(6))
    let untangleOnly = generator.chance(50)
    var fan = FanInPipelineBuilder(
        builder: PipelineBuilder(generator: generator, world: world), untangleOnly: untangleOnly, twin: twin)
    var (stream, text) = fan.fanIn(depth: 2)
    for _ in 0..<fan.builder.generator.below(3) {
        (stream, text) = fan.after((stream, text))
    }
    generator = fan.builder.generator
    let subscriber = ScriptedSubscriber.draw(&generator, world: world, cancelPercent: 20, sendPercent: 25)
    world.log.insert(contentsOf: ["pipeline \(text)", subscriber.header], at: 0)
    #if OPENCOMBINE
        if untangleOnly {
            world.log.append(notInOpenCombine)
            return (world.log, untangleOnly)
        }
    #endif
    stream.subscribe(subscriber)
    let read = (0...3).filter { text.contains("subject\($0)") }
    for _ in 0..<(4 + generator.below(24)) {
        var index = generator.below(world.subjects.count + 1)
        if !read.isEmpty, generator.chance(80) {
            index = read[generator.below(read.count)]
        }
        let step = ScriptStep.synchronousMix[generator.below(ScriptStep.synchronousMix.count)]
        if step == .request, generator.chance(20) {
            world.log.append("> request(.unlimited)")
            subscriber.subscription?.request(.unlimited)
            continue
        }
        world.perform(step, on: index, for: subscriber, &generator)
    }
    return (world.log, untangleOnly)
}
