import Untangle

/// When UntangleExtras' `zip(_:finishing:)` (and its forms for three and four publishers, and a collection's
/// `zip(finishing:)`) finishes.
///
/// ```swift
/// let pairs = letters.zip(digits, finishing: .whenEveryPublisherFinishes)
/// ```
///
/// **Demand:** none of its own: the zips ask each publisher only for what the subscriber can take, as Combine's.
/// **Thread safety:** a value: any thread.
public enum ZipFinish: Sendable, Hashable {
    /// Combine's: as soon as a finished publisher has no value left to pair (the others are cancelled).
    case whenAPublisherRunsOut
    /// RxSwift's `Observable.zip`: only once every publisher has finished; values the others send meanwhile stay
    /// unpaired. (RxSwift's `zip` of a collection also finishes when a value arrives that can never be paired because
    /// every other publisher has finished, and so does a collection's `zip(finishing:)`.)
    case whenEveryPublisherFinishes
}

extension ZipFinish {
    /// The core zip's rule for this choice.
    @usableFromInline
    var rule: ZipFinishRule {
        switch self {
        case .whenAPublisherRunsOut: return .whenAnUpstreamRunsOut
        case .whenEveryPublisherFinishes: return .whenEveryUpstreamFinished
        }
    }
}
