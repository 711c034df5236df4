/// Which calls of a burst a ``Debouncer`` or ``Throttler`` runs: the first (leading edge), the last (trailing
/// edge), or both.
///
/// ```swift
/// let debouncer = Debouncer(dueTime: .milliseconds(300), scheduler: DispatchQueue.main, edges: [.leading, .trailing])
/// ```
///
/// **Thread safety:** a value.
public struct TimingEdges: OptionSet, Sendable, Hashable {
    /// The raw bits.
    public let rawValue: Int

    /// Creates a set from raw bits.
    public init(rawValue: Int) {
        self.rawValue = rawValue
    }

    /// Run the first call of a burst at once.
    public static let leading = TimingEdges(rawValue: 1)
    /// Run the last call of a burst when the burst ends.
    public static let trailing = TimingEdges(rawValue: 2)
}
