/// A publisher that allows for recording a series of inputs and a completion, for later playback to each subscriber.
///
/// ```swift
/// let replay = Record<Int, Never>(output: [1, 2, 3], completion: .finished)
/// let cancellable = replay.sink { print($0) }   // 1, 2, 3
/// ```
///
/// **Demand:** exactly one recorded value per unit of demand; the recorded completion follows the last value at
/// once.
/// **Thread safety:** may be subscribed to from any thread; each subscription replays independently, and its
/// `request`/`cancel` may be called from any thread, including from inside `receive` (no stack growth per value).
public struct Record<Output, Failure: Error>: Publisher {
    /// The recorded output and completion.
    public let recording: Recording

    /// Creates a publisher by filling a recording in a closure.
    public init(record: (inout Recording) -> Void) {
        var recording = Recording()
        record(&recording)
        self.recording = recording
    }

    /// Creates a publisher from an existing recording.
    public init(recording: Recording) {
        self.recording = recording
    }

    /// Creates a publisher that replays the given output and completion.
    public init(output: [Output], completion: Subscribers.Completion<Failure>) {
        self.recording = Recording(output: output, completion: completion)
    }

    /// Attaches a subscriber, which receives the recording as it requests.
    public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
        SynchronousSourceSubscription.subscribe(
            subscriber, to: RecordSource<Output, Failure>(output: recording.output), completion: recording.completion)
    }

    /// A recorded sequence of outputs, followed by a completion.
    ///
    /// ```swift
    /// var recording = Record<Int, Never>.Recording()
    /// recording.receive(1)
    /// recording.receive(completion: .finished)
    /// ```
    ///
    /// **Thread safety:** a value type; mutate it from one thread at a time.
    public struct Recording {
        /// The kind of values the recording accepts.
        public typealias Input = Output

        /// The output recorded so far.
        public private(set) var output: [Output]
        /// The completion; `.finished` until another one is recorded.
        public private(set) var completion: Subscribers.Completion<Failure>
        private var isComplete: Bool

        /// Creates an empty recording.
        public init() {
            output = []
            completion = .finished
            isComplete = false
        }

        /// Creates a complete recording of the given output and completion.
        public init(output: [Output], completion: Subscribers.Completion<Failure> = .finished) {
            self.output = output
            self.completion = completion
            isComplete = true
        }

        /// Adds an output. Recording after the completion is a programming error and stops the program, as in
        /// Apple's Combine.
        public mutating func receive(_ input: Output) {
            precondition(!isComplete, "Record.Recording: receive(_:) after the completion was recorded")
            output.append(input)
        }

        /// Records the completion. Recording a second completion stops the program.
        public mutating func receive(completion: Subscribers.Completion<Failure>) {
            precondition(!isComplete, "Record.Recording: receive(completion:) after the completion was recorded")
            self.completion = completion
            isComplete = true
        }
    }
}

/// A recording's output for a ``SynchronousSourceSubscription``, presented as Combine presents a `Record`'s
/// subscription: it describes itself as the output (`"[1, 2]"`) and reflects `sequence` and `completion` while it
/// runs, then is `"Cancelled Events"` with an empty `sequence`. A zero request is ignored.
struct RecordSource<Output, Failure: Error>: SynchronousSource {
    let output: [Output]

    static var toleratesZeroDemand: Bool { true }

    func makeElements() -> IndexingIterator<[Output]> {
        output.makeIterator()
    }

    static func describe(_ source: Self?) -> String {
        source.map { $0.output.description } ?? "Cancelled Events"
    }

    static func mirrorChildren(of source: Self?, completion: Subscribers.Completion<Failure>) -> [Mirror.Child] {
        [(label: "sequence", value: source?.output ?? []), (label: "completion", value: completion)]
    }
}

extension Record.Recording: Equatable where Output: Equatable, Failure: Equatable {}
extension Record: Equatable where Output: Equatable, Failure: Equatable {}
extension Record.Recording: Sendable where Output: Sendable, Failure: Sendable {}
extension Record: Sendable where Output: Sendable, Failure: Sendable {}

private enum RecordingCodingKeys: String, CodingKey {
    case output
    case completion
}

extension Record.Recording: Codable where Output: Codable, Failure: Codable {
    /// Decodes `{"output": [...], "completion": ...}` into a complete recording (recording more into it stops the
    /// program), as Combine does.
    ///
    /// ```swift
    /// let recording = try JSONDecoder().decode(Record<Int, Never>.Recording.self, from: data)
    /// ```
    ///
    /// **Thread safety:** a value; decode on any thread.
    public init(from decoder: Decoder) throws {
        let container = try decoder.container(keyedBy: RecordingCodingKeys.self)
        let output = try container.decode([Output].self, forKey: .output)
        let completion = try container.decode(Subscribers.Completion<Failure>.self, forKey: .completion)
        self.init(output: output, completion: completion)
    }

    /// Encodes the output and the completion (`{"output": [...], "completion": {"success": true}}`), as
    /// ``encode(to:)``; Combine's name for it.
    ///
    /// ```swift
    /// try recording.encode(into: encoder)
    /// ```
    ///
    /// **Thread safety:** a value; encode on any thread.
    public func encode(into encoder: Encoder) throws {
        try encode(to: encoder)
    }

    /// Encodes the output and the completion. A recording still open is encoded the same way (and so decodes as
    /// complete), as in Combine.
    ///
    /// ```swift
    /// let data = try JSONEncoder().encode(recording)
    /// ```
    ///
    /// **Thread safety:** a value; encode on any thread.
    public func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: RecordingCodingKeys.self)
        try container.encode(output, forKey: .output)
        try container.encode(completion, forKey: .completion)
    }
}
extension Record: Codable where Output: Codable, Failure: Codable {}
