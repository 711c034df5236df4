import UntangleSync

/// The shared storage of one `@Published` property: its value, the subject behind `$property`, the enclosing object's
/// `objectWillChange` (once someone asked for it), and the subscriptions made by `assign(to: &$property)`.
///
/// ```swift
/// let box = PublishedBox(1)
/// box.set(2)      // announces on objectWillChange, sends 2 to `$property` subscribers, then stores 2
/// box.value       // 2
/// ```
///
/// **Demand:** per `$property` subscriber, as ``CurrentValueSubject``: the current value on its first request, then
/// each new value it has demand for (the latest one if it had none).
/// **Thread safety:** every method may be called from any thread. A change announces and publishes with no lock held,
/// then stores; concurrent changes from several threads are each published, in an unspecified order, and the property
/// ends up holding one of them.
@usableFromInline
final class PublishedBox<Value>: @unchecked Sendable {
    private struct State {
        var value: Value
        var objectWillChange: ObservableObjectPublisher?
        var assignments: [Subscription] = []
        var isGone = false
    }

    private let state: LockedBox<State>
    @usableFromInline let subject: CurrentValueSubject<Value, Never>

    init(_ value: Value) {
        state = LockedBox(tracking: State(value: value))
        subject = CurrentValueSubject(value, kind: .published)
    }

    deinit {
        // The property is gone: stop the publishers assigned to it (the lifetime Apple documents for assign(to:)).
        let assignments = state.withCriticalSection { state -> [Subscription] in
            state.isGone = true
            defer { state.assignments = [] }
            return state.assignments
        }
        CalloutCheck.assertNoLockHeld("Published cancelling assign(to:) subscriptions")
        for subscription in assignments {
            subscription.cancel()
        }
    }

    var value: Value {
        state.withCriticalSection { $0.value }
    }

    // willSet semantics, as Apple's: the object announces the change, then `$property` subscribers receive the new
    // value while the property still reads the old one, then the value is stored. Nothing is held across the two
    // callouts; the old value is released after the lock (its deinit is user code).
    func set(_ newValue: Value) {
        let objectWillChange = state.withCriticalSection { $0.objectWillChange }
        CalloutCheck.assertNoLockHeld("Published announcing objectWillChange")
        objectWillChange?.send()
        subject.send(newValue)
        let old = state.withCriticalSection { state -> Value in
            defer { state.value = newValue }
            return state.value
        }
        withExtendedLifetime(old) {}
    }

    func installObjectWillChange(_ publisher: ObservableObjectPublisher) -> ObservableObjectPublisher {
        state.withCriticalSection { state in
            if let installed = state.objectWillChange { return installed }
            state.objectWillChange = publisher
            return publisher
        }
    }

    /// Keeps an `assign(to:)` subscription until the property goes away; returns false if it already has.
    func adopt(_ subscription: Subscription) -> Bool {
        state.withCriticalSection { state in
            guard !state.isGone else { return false }
            state.assignments.append(subscription)
            return true
        }
    }
}
