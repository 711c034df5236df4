import Untangle

/// The phase of a `Publishers.Create` subscription's teardown, as it travels between the producer's `body` returning
/// it and the end of the subscription (a cancel or a completion), whichever comes first. It never calls out: the
/// teardown is run by the subscription after unlocking.
///
/// **Thread safety:** none: always mutated under the subscription's lock.
@usableFromInline
enum CreateStateMachine {
    /// `body` runs (or has not started): no teardown yet.
    case running
    /// `body` returned this teardown, run when the subscription ends.
    case returned(teardown: any Cancellable)
    /// The subscription ended (cancel or completion); a teardown returned later runs at once.
    case ended

    @usableFromInline
    var isEnded: Bool {
        if case .ended = self { return true }
        return false
    }

    /// The subscription ended (cancel or completion): the teardown to run now, if `body` already returned it.
    @usableFromInline
    mutating func end() -> (any Cancellable)? {
        switch self {
        case .running:
            self = .ended
            return nil
        case .returned(let teardown):
            self = .ended
            return teardown
        case .ended:
            return nil
        }
    }

    /// `body` returned its teardown: keep it, or hand it back to run now if the subscription already ended.
    @usableFromInline
    mutating func bodyReturned(_ teardown: any Cancellable) -> (any Cancellable)? {
        switch self {
        case .running:
            self = .returned(teardown: teardown)
            return nil
        case .returned:
            impossibleEvent("CreateStateMachine: bodyReturned twice")
        case .ended:
            return teardown
        }
    }
}
