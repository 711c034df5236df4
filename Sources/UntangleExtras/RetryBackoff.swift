/// How long to wait before each retry: exponential growth from an initial delay, capped, with optional jitter.
///
/// The delay before retry `n` (1 for the first retry) is `min(maxDelay, initialDelay * multiplier^(n-1))`, then
/// jitter takes off up to `jitter` of it at random: `delay * (1 - jitter * random())`, with `random()` in `0..<1`.
/// `jitter: 1` is "full jitter" (anywhere between 0 and the delay), `0` is none. Jitter spreads the retries of many
/// clients that failed together, so they do not all hit the server again at the same instant.
///
/// ```swift
/// let backoff = RetryBackoff.exponential(initial: 0.5, multiplier: 2, maxDelay: 30, jitter: 0.5)
/// backoff.delay(beforeRetry: 3)   // between 1.0 and 2.0 seconds
/// ```
///
/// Tests make the jitter deterministic by passing `random`.
///
/// **Thread safety:** a value; `random` may be called from any thread.
public struct RetryBackoff: Sendable {
    /// The delay before the first retry, in seconds.
    public var initialDelay: Double
    /// The factor applied for each further retry.
    public var multiplier: Double
    /// The cap, in seconds, applied before jitter.
    public var maxDelay: Double
    /// The fraction of the delay, in `0...1`, that jitter may take off.
    public var jitter: Double
    /// The random source for jitter: values in `0..<1`.
    public var random: @Sendable () -> Double

    /// Creates a backoff.
    ///
    /// - Precondition: delays are not negative, `multiplier >= 1`, `jitter` is in `0...1`.
    public init(
        initialDelay: Double, multiplier: Double = 2, maxDelay: Double = .infinity, jitter: Double = 0,
        random: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) }
    ) {
        precondition(initialDelay >= 0 && maxDelay >= 0, "RetryBackoff: delays must not be negative")
        precondition(multiplier >= 1, "RetryBackoff: multiplier must be at least 1 (got \(multiplier))")
        precondition((0...1).contains(jitter), "RetryBackoff: jitter must be in 0...1 (got \(jitter))")
        self.initialDelay = initialDelay
        self.multiplier = multiplier
        self.maxDelay = maxDelay
        self.jitter = jitter
        self.random = random
    }

    /// Exponential backoff: `initial`, `initial * multiplier`, ... capped at `maxDelay`, with `jitter`.
    ///
    /// ```swift
    /// let backoff = RetryBackoff.exponential(initial: 1, jitter: 1)
    /// ```
    public static func exponential(
        initial: Double, multiplier: Double = 2, maxDelay: Double = .infinity, jitter: Double = 0
    ) -> RetryBackoff {
        RetryBackoff(initialDelay: initial, multiplier: multiplier, maxDelay: maxDelay, jitter: jitter)
    }

    /// The same delay before every retry.
    ///
    /// ```swift
    /// let backoff = RetryBackoff.constant(2)
    /// ```
    public static func constant(_ seconds: Double) -> RetryBackoff {
        RetryBackoff(initialDelay: seconds, multiplier: 1)
    }

    /// No delay: retry at once (on the scheduler).
    public static let immediate = RetryBackoff(initialDelay: 0, multiplier: 1)

    /// The delay in seconds before retry `retry` (1 for the first retry).
    ///
    /// - Precondition: `retry >= 1`.
    public func delay(beforeRetry retry: Int) -> Double {
        precondition(retry >= 1, "RetryBackoff: retries are numbered from 1 (got \(retry))")
        var base = initialDelay
        // Multiply step by step so that a large retry number saturates at the cap instead of overflowing.
        var step = 1
        while step < retry && base < maxDelay {
            base *= multiplier
            step += 1
        }
        base = Swift.min(base, maxDelay)
        guard jitter > 0 else { return base }
        let unit = Swift.min(Swift.max(random(), 0), 1)
        return base * (1 - jitter * unit)
    }
}
