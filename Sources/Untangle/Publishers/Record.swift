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
            subscriber, to: recording.output.makeIterator(), completion: recording.completion, name: "Record")
    }

    /// A recorded sequence of outputs, followed by a completion.
    ///
    /// ```swift
    /// var recording = Record<Int, Never>.Recording()
    /// recording.receive(1)
    /// recording.receive(completion: .finished)
    /// ```
    ///
    /// **Demand:** not applicable (a value).
    /// **Thread safety:** a value type; mutate it from one thread at a time.
    public struct Recording {
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

extension Record.Recording: Equatable where Output: Equatable, Failure: Equatable {}
extension Record: Equatable where Output: Equatable, Failure: Equatable {}
extension Record.Recording: Sendable where Output: Sendable, Failure: Sendable {}
extension Record: Sendable where Output: Sendable, Failure: Sendable {}

private enum RecordingCodingKeys: String, CodingKey {
    case output
    case completion
    case isComplete
}

extension Record.Recording: Codable where Output: Codable, Failure: Codable {
    /// Decodes `{"output": [...], "completion": ...}`; a recording still open when it was encoded carries
    /// `"isComplete": false` and stays open (a missing key means complete).
    public init(from decoder: Decoder) throws {
        let container = try decoder.container(keyedBy: RecordingCodingKeys.self)
        let output = try container.decode([Output].self, forKey: .output)
        if try container.decodeIfPresent(Bool.self, forKey: .isComplete) ?? true {
            self.init(
                output: output,
                completion: try container.decode(Subscribers.Completion<Failure>.self, forKey: .completion))
        } else {
            self.init()
            self.output = output
        }
    }

    /// Encodes the output and the completion, plus `"isComplete": false` for a recording still open.
    public func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: RecordingCodingKeys.self)
        try container.encode(output, forKey: .output)
        try container.encode(completion, forKey: .completion)
        if !isComplete {
            try container.encode(false, forKey: .isComplete)
        }
    }
}
extension Record: Codable where Output: Codable, Failure: Codable {}
