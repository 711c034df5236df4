/// A type of object with a publisher that emits before the object has changed.
///
/// By default an `ObservableObject` synthesizes an `objectWillChange` publisher (an ``ObservableObjectPublisher``)
/// that emits before any of its `@Published` properties changes, on Linux as on Apple platforms.
///
/// ```swift
/// final class Contact: ObservableObject {
///     @Published var name: String
///     @Published var age: Int
///     init(name: String, age: Int) { self.name = name; self.age = age }
/// }
/// let john = Contact(name: "John Appleseed", age: 24)
/// let cancellable = john.objectWillChange.sink { _ in print("\(john.age) will change") }
/// john.age += 1   // prints "24 will change"
/// ```
///
/// **Demand:** see ``ObservableObjectPublisher``.
/// **Thread safety:** `objectWillChange` may be read from any thread; every read returns the same publisher for one
/// object.
public protocol ObservableObject: AnyObject {
    /// The type of publisher that emits before the object has changed.
    associatedtype ObjectWillChangePublisher: Publisher = ObservableObjectPublisher
    where ObjectWillChangePublisher.Failure == Never

    /// A publisher that emits before the object has changed.
    var objectWillChange: ObjectWillChangePublisher { get }
}

extension ObservableObject where ObjectWillChangePublisher == ObservableObjectPublisher {
    /// A publisher that emits before the object has changed: the one publisher of this object, created on first use.
    ///
    /// Every `@Published` property of the object (including those declared in superclasses) announces its changes
    /// here. An object that declares its own `objectWillChange` does not use this one, and its `@Published`
    /// properties do not send to it (call `send()` yourself), as in Apple's Combine.
    ///
    /// ```swift
    /// let cancellable = model.objectWillChange.sink { print("model will change") }
    /// ```
    ///
    /// **Demand:** see ``ObservableObjectPublisher``.
    /// **Thread safety:** may be read from any thread; concurrent first reads agree on one publisher. The object's
    /// `@Published` properties are found by reflection (`Mirror`) on first use; an object whose class is
    /// `CustomReflectable` and hides them from its mirror gets a publisher its properties do not send to.
    public var objectWillChange: ObservableObjectPublisher {
        ObjectWillChangeRegistry.publisher(for: self)
    }
}
