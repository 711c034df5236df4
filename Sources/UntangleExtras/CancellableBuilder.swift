import Untangle

/// A result builder that collects cancellables, for ``CancelBag`` and ``CompositeCancellable``.
///
/// ```swift
/// let bag = CancelBag {
///     model.$name.sink { label.text = $0 }
///     model.$age.sink { print($0) }
/// }
/// bag.insert {
///     if debug { events.sink { print($0) } }
///     for source in sources { source.sink { _ in } }
/// }
/// ```
///
/// Any `Cancellable` may appear; each is wrapped in an `AnyCancellable` unless it is one already. `if`, `if`/`else`,
/// `switch` and `for` are supported.
///
/// **Thread safety:** the builder runs synchronously on the calling thread; it only collects values.
@resultBuilder
public enum CancellableBuilder {
    /// Wraps one cancellable.
    public static func buildExpression(_ cancellable: any Cancellable) -> [AnyCancellable] {
        if let any = cancellable as? AnyCancellable {
            return [any]
        }
        return [AnyCancellable(cancellable)]
    }

    /// Keeps an `AnyCancellable` as it is.
    public static func buildExpression(_ cancellable: AnyCancellable) -> [AnyCancellable] {
        [cancellable]
    }

    /// Accepts an already collected list (for example a `map` over subscriptions).
    public static func buildExpression(_ cancellables: [AnyCancellable]) -> [AnyCancellable] {
        cancellables
    }

    /// Concatenates the statements of a block.
    public static func buildBlock(_ components: [AnyCancellable]...) -> [AnyCancellable] {
        components.flatMap { $0 }
    }

    /// An `if` without `else`.
    public static func buildOptional(_ component: [AnyCancellable]?) -> [AnyCancellable] {
        component ?? []
    }

    /// The first branch of an `if`/`else` or `switch`.
    public static func buildEither(first component: [AnyCancellable]) -> [AnyCancellable] {
        component
    }

    /// The second branch of an `if`/`else` or `switch`.
    public static func buildEither(second component: [AnyCancellable]) -> [AnyCancellable] {
        component
    }

    /// A `for` loop.
    public static func buildArray(_ components: [[AnyCancellable]]) -> [AnyCancellable] {
        components.flatMap { $0 }
    }

    /// `if #available` blocks.
    public static func buildLimitedAvailability(_ component: [AnyCancellable]) -> [AnyCancellable] {
        component
    }
}

extension CancelBag {
    /// Creates a bag holding the cancellables the builder lists.
    ///
    /// ```swift
    /// let bag = CancelBag {
    ///     a.sink { print($0) }
    ///     b.sink { print($0) }
    /// }
    /// ```
    public convenience init(@CancellableBuilder _ content: () -> [AnyCancellable]) {
        self.init()
        insert(content)
    }

    /// Inserts every cancellable the builder lists (each cancelled at once if the bag is already cancelled).
    ///
    /// ```swift
    /// bag.insert {
    ///     a.sink { print($0) }
    ///     b.sink { print($0) }
    /// }
    /// ```
    public func insert(@CancellableBuilder _ content: () -> [AnyCancellable]) {
        for cancellable in content() {
            insert(cancellable)
        }
    }
}
