import Dispatch
import Untangle

/// Marble diagrams: one line of text for a timeline of values and a completion, to describe an operator's input and
/// its expected output.
///
/// Syntax (one character per frame; a frame is ``defaultFrame`` unless you pass another):
/// - `-` one frame passes with nothing;
/// - any other letter, digit or symbol is a value, looked up in the `values` dictionary, and takes one frame;
/// - `|` the publisher finishes, `#` it fails with the given error;
/// - `(ab)` a group: everything inside happens in the same frame, and the group takes one frame;
/// - `^` (hot publishers only) the subscription point: time zero; frames before it are in the past;
/// - spaces are ignored (use them to align diagrams).
///
/// ```swift
/// let scheduler = TestScheduler()
/// let input = try scheduler.createColdPublisher(marbles: "-a-b--c|", values: ["a": 1, "b": 2, "c": 3])
/// let subscriber = TestSubscriber<Int, Never>(scheduler: scheduler)
/// let start = scheduler.now
/// input.map { $0 * 10 }.subscribe(subscriber)
/// scheduler.run()
/// XCTAssertEqual(subscriber.marbles(from: start, values: ["x": 10, "y": 20, "z": 30]), "-x-y--z|")
/// ```
///
/// **Thread safety:** pure functions; call them from any thread.
public enum Marbles {
    /// One second: the frame length used when none is given.
    public static let defaultFrame = TestScheduler.SchedulerTimeType.Stride.seconds(1)

    /// Parses `diagram` into a timeline whose offsets count from the start of the diagram, or from `^` if present.
    ///
    /// - Parameters:
    ///   - diagram: The marble diagram: one character per frame (see ``Marbles``).
    ///   - values: The value of each value character.
    ///   - error: The error `#` stands for (`nil`: `#` is a syntax error).
    ///   - frame: The duration of one frame.
    ///   - allowsSubscriptionPoint: Whether `^` is allowed (hot publishers).
    /// - Throws: ``MarbleSyntaxError`` for an unknown character, a nested or unclosed group, a misplaced or repeated
    ///   `^`, a `#` without an error, or an event after the completion.
    public static func parse<Value, Failure: Error>(
        _ diagram: String,
        values: [Character: Value],
        error: Failure? = nil,
        frame: TestScheduler.SchedulerTimeType.Stride = defaultFrame,
        allowsSubscriptionPoint: Bool = true
    ) throws -> [TimedEvent<Value, Failure>] {
        func fail(_ offset: Int, _ message: String) -> MarbleSyntaxError {
            MarbleSyntaxError(diagram: diagram, offset: offset, message: message)
        }
        var events: [(frame: Int, event: TestEvent<Value, Failure>)] = []
        var currentFrame = 0
        var groupStart: Int?
        var subscriptionFrame: Int?
        var completed = false
        for (offset, character) in diagram.enumerated() {
            if character == " " { continue }
            if completed, character != "-" {
                throw fail(offset, "'\(character)' after the completion")
            }
            switch character {
            case "-":
                if groupStart != nil { throw fail(offset, "'-' inside a group") }
                currentFrame += 1
                continue
            case "(":
                if let groupStart { throw fail(offset, "a group inside the group opened at offset \(groupStart)") }
                groupStart = offset
                continue
            case ")":
                if groupStart == nil { throw fail(offset, "')' without '('") }
                groupStart = nil
                currentFrame += 1
                continue
            case "^":
                guard allowsSubscriptionPoint else {
                    throw fail(offset, "'^' (subscription point) is only for hot publishers")
                }
                if groupStart != nil { throw fail(offset, "'^' inside a group") }
                if subscriptionFrame != nil { throw fail(offset, "a second '^'") }
                subscriptionFrame = currentFrame
                currentFrame += 1
                continue
            case "|":
                events.append((currentFrame, .completion(.finished)))
                completed = true
            case "#":
                guard let error else { throw fail(offset, "'#' (failure) but no error was given") }
                events.append((currentFrame, .completion(.failure(error))))
                completed = true
            default:
                guard let value = values[character] else {
                    throw fail(offset, "'\(character)' is not in the values dictionary")
                }
                events.append((currentFrame, .value(value)))
            }
            if groupStart == nil { currentFrame += 1 }
        }
        if let groupStart { throw fail(groupStart, "unclosed group") }
        let origin = subscriptionFrame ?? 0
        return events.map { planned in
            TimedEvent(planned.event, at: .nanoseconds(frame.magnitude * (planned.frame - origin)))
        }
    }

    /// Renders recorded signals as a diagram, one character per frame from `origin`, in the syntax ``parse(_:values:error:frame:allowsSubscriptionPoint:)`` reads: values as
    /// `symbol(value)`, `|`, `#`, and `(...)` for several signals in one frame. The subscription is not drawn; the
    /// diagram ends at the last signal.
    ///
    /// - Precondition: every record has a virtual time (give the ``TestSubscriber`` a scheduler).
    public static func render<Value, Failure: Error>(
        _ records: [RecordedEvent<Value, Failure>],
        from origin: TestScheduler.SchedulerTimeType,
        frame: TestScheduler.SchedulerTimeType.Stride = defaultFrame,
        symbol: (Value) -> Character
    ) -> String {
        precondition(frame > .zero, "Marbles.render: the frame must be positive")
        var byFrame: [Int: [Character]] = [:]
        var lastFrame = -1
        for record in records {
            let character: Character
            switch record.event {
            case .subscription: continue
            case .value(let value): character = symbol(value)
            case .completion(.finished): character = "|"
            case .completion(.failure): character = "#"
            }
            guard let time = record.time else {
                preconditionFailure("Marbles.render needs virtual times: create the TestSubscriber with a scheduler")
            }
            let index = Swift.max(0, origin.distance(to: time).magnitude / frame.magnitude)
            byFrame[index, default: []].append(character)
            lastFrame = Swift.max(lastFrame, index)
        }
        guard lastFrame >= 0 else { return "" }
        var text = ""
        for index in 0...lastFrame {
            let characters = byFrame[index] ?? []
            switch characters.count {
            case 0: text += "-"
            case 1: text.append(characters[0])
            default: text += "(" + String(characters) + ")"
            }
        }
        return text
    }
}
