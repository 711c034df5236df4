import Untangle

/// How `assign(to:on:ownership:)` holds the object it assigns to.
///
/// ```swift
/// let cancellable = model.$title.assign(to: \.text, on: label, ownership: .weak)
/// ```
///
/// **Thread safety:** a value.
public enum ObjectOwnership: Sendable, Equatable {
    /// Keep the object alive as long as the subscription (Combine's `assign(to:on:)`: beware `self` cycles).
    case strong
    /// Hold it weakly: values arriving after the object is gone are ignored.
    case weak
    /// Hold it unowned: no retain, no check; a value arriving after the object is gone traps.
    case unowned
}

extension Publisher where Failure == Never {
    /// Assigns each value to a key path on an object, holding the object as `ownership` says.
    ///
    /// ```swift
    /// final class ViewModel { var title = ""; var bag = CancelBag() }
    /// model.titles.assign(to: \.title, on: self, ownership: .weak).store(in: bag)   // no cycle through self
    /// ```
    ///
    /// **Demand:** requests `.unlimited` (as `assign(to:on:)`).
    /// **Thread safety:** the assignment runs on the delivering thread, one value at a time (signals are
    /// serialized); the returned cancellable may be cancelled from any thread. As with `assign(to:on:)`, nothing
    /// checks the actor the property belongs to: deliver on the object's thread first.
    //
    // Disfavored: `assign(to:on:)` with two arguments must keep meaning Untangle's own.
    @_disfavoredOverload
    public func assign<Root: AnyObject>(
        to keyPath: ReferenceWritableKeyPath<Root, Output>, on object: Root, ownership: ObjectOwnership = .strong
    ) -> AnyCancellable {
        switch ownership {
        case .strong:
            return assign(to: keyPath, on: object)
        case .weak:
            return sink(
                receiveValue: { [weak object] value in
                    object?[keyPath: keyPath] = value
                })
        case .unowned:
            return sink(
                receiveValue: { [unowned object] value in
                    object[keyPath: keyPath] = value
                })
        }
    }
}
