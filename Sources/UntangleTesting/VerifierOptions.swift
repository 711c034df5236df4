import Foundation

/// What a publisher under ``PublisherVerifier`` promises, and how hard the verifier pushes it.
///
/// ```swift
/// var options = VerifierOptions(length: .exactly(3))            // [1, 2, 3].publisher
/// var subject = VerifierOptions(length: .unbounded, temperature: .hot, concurrentDrive: true)
/// ```
///
/// **Thread safety:** a value type; safe to pass between threads.
public struct VerifierOptions: Sendable {
    /// How many values a cold publisher produces when asked.
    ///
    /// **Thread safety:** a value type.
    public enum Length: Sendable, Equatable {
        /// Exactly `count` values, then a completion (finished or failure).
        case exactly(Int)
        /// At least `count` values; it may produce more, forever, or complete after them.
        case atLeast(Int)

        /// Promises nothing about the number of values (for example `Empty(completeImmediately: false)`).
        public static let unbounded = Length.atLeast(0)

        /// The number of values the publisher guarantees.
        public var minimum: Int {
            switch self {
            case .exactly(let count), .atLeast(let count): return count
            }
        }

        /// Whether the publisher promises to complete after ``minimum`` values.
        public var completes: Bool {
            if case .exactly = self { return true }
            return false
        }
    }

    /// Where values come from.
    ///
    /// **Thread safety:** a value type.
    public enum Temperature: Sendable, Equatable {
        /// The publisher produces values by itself once they are requested (sequences, `Just`, `Future`,
        /// timers...). ``VerifierOptions/length`` says how many.
        case cold
        /// Values appear only when the fixture's `drive` closure runs (subjects and everything built on them);
        /// values nobody requested may be dropped. Completion comes from the fixture's `finish` closure.
        case hot
    }

    /// How many values a cold publisher produces (ignored for hot publishers).
    public var length: Length
    /// Whether values come on request (cold) or from the fixture's `drive` (hot).
    public var temperature: Temperature
    /// Whether the completion follows the last promised value with no further demand (true for sources such as
    /// `Just`, sequences and `Future`). Set it to false for operators that drop upstream values after the last one
    /// they emit (`filter`, `compactMap`, `prefix(while:)`, a `tryMap` that throws...): to discover that the
    /// upstream ended they must pull its remaining elements, which takes demand. With false, the verifier keeps
    /// demand open after the promised values and still checks that no extra value arrives.
    ///
    /// For a hot publisher, false means the completion that follows `finish` may wait for one unit of demand: the
    /// publisher adds one value of its own around the driven ones (`append(_:)` or `prepend(_:)` of one value). The
    /// verifier then requests one value after `finish` and checks that at most that one arrives.
    public var completesWithoutExtraDemand: Bool
    /// Whether the fixture's `drive` may be called from several threads at once (true for subjects).
    public var concurrentDrive: Bool
    /// The longest any one rule may take before it reports "timed out" (a deadlock, or a publisher that never
    /// delivers what it promised). Waits for expected signals use half of it.
    public var timeout: TimeInterval
    /// How long `cancel()` may take while another thread is blocked inside the subscriber before the verifier calls
    /// it blocking. Generous by default: a correct cancel returns in microseconds.
    public var cancelTimeout: TimeInterval
    /// The deepest nesting of `receive(_:)` calls allowed on one thread when the subscriber requests from inside
    /// `receive(_:)`. 1 (Untangle's own standard) means a reentrant request never delivers nested.
    public var maximumDepth: Int
    /// How many values the recursion rule asks for one by one from inside `receive(_:)` (capped by ``length``).
    public var longStreamLength: Int
    /// How many threads the concurrency rules use.
    public var threads: Int
    /// How many `request(.max(1))` (or `drive`) calls each thread makes in one round of the concurrency rules.
    public var callsPerThread: Int
    /// How long each concurrency rule (``VerifierRule/concurrentRequests``, ``VerifierRule/concurrentDrive``) keeps
    /// starting new rounds on fresh instances, in seconds: a race shows in some rounds only, so a rule runs rounds
    /// until a round breaks the contract or the budget is spent (at least one round). 0 runs exactly one round (for
    /// large tables of publishers); raise it to search longer.
    public var concurrencyBudget: TimeInterval
    /// How long the subscriber stays inside `receive(_:)` in the concurrency rules, in seconds (it sleeps, so other
    /// threads run meanwhile, even on one core). A publisher that lets a second thread into the subscriber while the
    /// first is still inside is caught when the second delivery lands in this window; a correct publisher only gets
    /// slower. 0 returns at once.
    public var dwellInsideReceive: TimeInterval
    /// Called with each rule's name before it runs: a publisher that traps (for example on a demand overflow) stops
    /// the process, and this tells which rule it was.
    public var onRuleStart: (@Sendable (String) -> Void)?

    /// Creates options; every parameter has a default suited to a fast, correct publisher.
    public init(
        length: Length = .unbounded,
        temperature: Temperature = .cold,
        completesWithoutExtraDemand: Bool = true,
        concurrentDrive: Bool = false,
        timeout: TimeInterval = 30,
        cancelTimeout: TimeInterval = 10,
        maximumDepth: Int = 1,
        longStreamLength: Int = 10_000,
        threads: Int = 4,
        callsPerThread: Int = 50,
        concurrencyBudget: TimeInterval = 0.25,
        dwellInsideReceive: TimeInterval = 0.000_05,
        onRuleStart: (@Sendable (String) -> Void)? = nil
    ) {
        self.length = length
        self.temperature = temperature
        self.completesWithoutExtraDemand = completesWithoutExtraDemand
        self.concurrentDrive = concurrentDrive
        self.timeout = timeout
        self.cancelTimeout = cancelTimeout
        self.maximumDepth = maximumDepth
        self.longStreamLength = longStreamLength
        self.threads = threads
        self.callsPerThread = callsPerThread
        self.concurrencyBudget = concurrencyBudget
        self.dwellInsideReceive = dwellInsideReceive
        self.onRuleStart = onRuleStart
    }
}
