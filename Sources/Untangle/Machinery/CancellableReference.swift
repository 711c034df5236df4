import UntangleSync

/// A cancellable held as one object reference and its type, with no existential container: the cancellable itself
/// when it is a class instance (every Untangle subscription, `Subscribers.Sink`), otherwise a box holding it. The
/// type reaches its `cancel()` without a dynamic cast. `AnyCancellable` and `Subscribers.Sink` keep their targets
/// this way (24 bytes, where an existential takes 40).
///
/// ```swift
/// let reference = CancellableReference(subscription)   // any Cancellable
/// reference.cancel()
/// ```
///
/// **Thread safety:** a value; `cancel()` runs on the calling thread.
@usableFromInline
struct CancellableReference {
    /// The cancellable (when its type is a class) or its box.
    @usableFromInline let object: AnyObject
    /// The dynamic type of `object`.
    @usableFromInline let type: any Cancellable.Type

    /// Any cancellable (the class check runs once, here).
    @usableFromInline
    init<C: Cancellable>(_ cancellable: C) {
        if C.self is AnyClass {
            self.init(object: RawReference.object(cancellable), type: C.self)
        } else {
            self.init(object: CancellableBox(cancellable), type: CancellableBox<C>.self)
        }
    }

    /// A cancellable known to be a class instance: no check.
    @inlinable
    init<C: Cancellable & AnyObject>(object: C) {
        self.init(object: object, type: C.self)
    }

    @usableFromInline
    init(object: AnyObject, type: any Cancellable.Type) {
        self.object = object
        self.type = type
    }

    /// Cancels the cancellable.
    @usableFromInline
    func cancel() {
        Self.cancel(object, as: type)
    }

    /// Cancels `object`, an instance of `type` (a class type: see the initializers), without a dynamic cast.
    @usableFromInline
    static func cancel(_ object: AnyObject, as type: any Cancellable.Type) {
        type.cancelInstance(object)
    }
}

extension CancellableReference {
    /// Cancels the object that `bits` holds retained (`RetainedBits`), an instance of `type` (a class type: see the
    /// initializers), and gives that retain back.
    //
    // Performance: the owner of a retained reference (`AnyCancellable`, `Subscribers.Sink`, each taking its target
    // out of its word) hands it over here, and the unspecialized code moves it into a value of `Self`, calls
    // `cancel()` on it and destroys it: one release. Borrowed instead (`cancel(_:as:)`), the reference was copied into
    // a value of `Self` through `Self`'s value witnesses and both were released: a retain and a release more, about
    // 55 instructions per cancel, twice per `subject.sink { }` cancelled (the `AnyCancellable` cancels the sink, the
    // sink its subscription).
    @usableFromInline
    static func cancel(retained bits: Int, as type: any Cancellable.Type) {
        type.cancelRetainedInstance(bits)
    }
}

extension Cancellable {
    /// Cancels `object`, a reference to an instance of `Self`, a class type (see `CancellableReference`).
    fileprivate static func cancelInstance(_ object: AnyObject) {
        RawReference.instance(object, as: Self.self).cancel()
    }

    /// Cancels the instance of `Self` (a class type) that `bits` holds retained, and releases it.
    fileprivate static func cancelRetainedInstance(_ bits: Int) {
        RetainedBits.moveOut(bits, as: Self.self).cancel()
    }
}

/// The object a ``CancellableReference`` holds for a cancellable that is not a class instance.
private final class CancellableBox<Base: Cancellable>: Cancellable {
    let base: Base

    init(_ base: Base) {
        self.base = base
    }

    func cancel() {
        base.cancel()
    }
}
