/// What ``ObjectWillChangeRegistry`` needs from a `@Published` property's storage, whatever its value type.
///
/// ```swift
/// if let storage = child.value as? any PublishedStorage { _ = storage.installObjectWillChange(publisher) }
/// ```
///
/// **Thread safety:** `installObjectWillChange` may be called from any thread.
protocol PublishedStorage {
    /// Keeps `publisher` as the enclosing object's `objectWillChange` unless one is already kept; returns the one kept.
    func installObjectWillChange(_ publisher: ObservableObjectPublisher) -> ObservableObjectPublisher
}
