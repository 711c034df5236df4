/// A type that publishes a property marked with an attribute.
///
/// Mark a property of a class `@Published` to get a publisher of its values as `$property`: a subscriber receives the
/// current value at once, then every new value, delivered *before* the property changes (in the property's `willSet`):
/// inside the subscriber the property still reads the old value. In an ``ObservableObject``, each change is announced
/// on the object's `objectWillChange` first. `@Published` is only available on properties of classes.
///
/// ```swift
/// final class Weather {
///     @Published var temperature: Double
///     init(temperature: Double) { self.temperature = temperature }
/// }
/// let weather = Weather(temperature: 20)
/// let cancellable = weather.$temperature.sink { print("Temperature now: \($0)") }   // prints 20.0
/// weather.temperature = 25                                                         // prints 25.0
/// ```
///
/// **Demand:** `$property` behaves like a ``CurrentValueSubject``: the current value on a subscriber's first request,
/// then each new value it has demand for; without demand it keeps only the latest value for that subscriber.
/// **Thread safety:** the property may be read and set from any thread (each read and each write is atomic); `$property`
/// may be subscribed to from any thread. A change publishes with no lock held. Concurrent changes from several threads
/// are all published, in an unspecified order; the property ends up holding one of them.
@propertyWrapper
public struct Published<Value> {
    /// A publisher for properties marked with the `@Published` attribute.
    ///
    /// ```swift
    /// let names: Published<String>.Publisher = contact.$name
    /// ```
    ///
    /// **Demand:** as ``CurrentValueSubject``.
    /// **Thread safety:** `subscribe` may be called from any thread; subscribers receive one signal at a time.
    public struct Publisher: Untangle.Publisher, _OneObjectSink {
        /// The kind of values published by this publisher.
        public typealias Output = Value

        /// The kind of errors this publisher might publish: it never fails.
        public typealias Failure = Never

        @usableFromInline let box: PublishedBox<Value>

        /// Attaches a subscriber: it receives the property's current value, then each new value.
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Value, S.Failure == Never {
            box.subject.subscribe(subscriber)
        }

        /// The one-object sink subscription (see `_OneObjectSink`): the property's subject's, which delivers the
        /// current value first.
        ///
        /// ```swift
        /// let cancellable = contact.$name.sink { print($0) }  // calls this
        /// ```
        @inlinable
        @inline(__always)
        public func _sink(
            receiveCompletion: @escaping (Subscribers.Completion<Never>) -> Void,
            receiveValue: @escaping (Value) -> Void
        ) -> () -> Void {
            box.subject._sink(receiveCompletion: receiveCompletion, receiveValue: receiveValue)
        }
    }

    let box: PublishedBox<Value>

    /// Creates the published instance with an initial value.
    ///
    /// - Parameter initialValue: The publisher's initial value.
    public init(initialValue: Value) {
        box = PublishedBox(initialValue)
    }

    /// Creates the published instance with an initial wrapped value (what `@Published var x = value` calls).
    ///
    /// - Parameter wrappedValue: The publisher's initial value.
    public init(wrappedValue: Value) {
        box = PublishedBox(wrappedValue)
    }

    /// Not available: `@Published` is only available on properties of classes.
    @available(*, unavailable, message: "@Published is only available on properties of classes")
    public var wrappedValue: Value {
        get { fatalError("@Published is only available on properties of classes") }
        // swift-format-ignore
        set { fatalError("@Published is only available on properties of classes") }
    }

    /// The property's publisher, `$property`.
    ///
    /// The setter exists so that `$property` can be passed `inout` to `assign(to:)`; it keeps the property's own
    /// publisher (assigning another one changes nothing).
    public var projectedValue: Publisher {
        mutating get { Publisher(box: box) }
        // swift-format-ignore
        set {}
    }

    /// The enclosing-instance access to a `@Published` property of a class: reads the value; a write announces on the
    /// object's `objectWillChange` (if it uses the default one and someone asked for it), publishes the new value to
    /// `$property`, then stores it.
    public static subscript<EnclosingSelf: AnyObject>(
        _enclosingInstance object: EnclosingSelf,
        wrapped wrappedKeyPath: ReferenceWritableKeyPath<EnclosingSelf, Value>,
        storage storageKeyPath: ReferenceWritableKeyPath<EnclosingSelf, Published<Value>>
    ) -> Value {
        get { object[keyPath: storageKeyPath].box.value }
        set { object[keyPath: storageKeyPath].box.set(newValue) }
    }
}

extension Published: PublishedStorage {
    func installObjectWillChange(_ publisher: ObservableObjectPublisher) -> ObservableObjectPublisher {
        box.installObjectWillChange(publisher)
    }
}
