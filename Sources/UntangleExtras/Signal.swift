import Untangle

/// A publisher of UI events, RxCocoa's `Signal`: like ``Driver`` it never fails, delivers on the main queue through
/// ``MainThreadScheduler`` (in line when already there) and shares one subscription to its source, but it replays
/// nothing: a subscriber sees only the events sent after it subscribed (a tap, a message to show once).
///
/// Make one with `asSignal(onErrorJustReturn:)`, `asSignal(onErrorSignalWith:)`, `asSignal(onErrorRecover:)`, or
/// `asSignal()` for a publisher that cannot fail; consume it with ``emit(_:)`` (or any subscriber).
///
/// ```swift
/// let taps: Signal<Void> = tapRelay.asSignal()
/// let cancellable = taps.emit { router.showDetail() }
/// ```
///
/// It is RxCocoa's composition: `replaceError/catch` → `receive(on: MainThreadScheduler.shared)` →
/// `share(replay: 0)`. The source is shared while anyone is subscribed; the last cancel disconnects it and the next
/// subscriber connects again.
///
/// **Demand:** as `receive(on:)` followed by `share(replay: 0)`: each subscriber's demand is its own; an event sent
/// while a subscriber has no demand is dropped for that subscriber.
/// **Thread safety:** may be subscribed and cancelled from any thread; values and the completion are delivered on the
/// main queue, one at a time per subscriber.
public struct Signal<Output>: Publisher {
    /// A signal never fails.
    public typealias Failure = Never

    private let source: AnyPublisher<Output, Never>

    /// Wraps a publisher that cannot fail: it is delivered on the main queue (in line when already there) and shared
    /// without replay.
    ///
    /// ```swift
    /// let signal = Signal(buttonTaps)
    /// ```
    public init<P: Publisher>(_ publisher: P) where P.Output == Output, P.Failure == Never {
        source = publisher.receive(on: MainThreadScheduler.shared).share(replay: 0).eraseToAnyPublisher()
    }

    /// A signal that sends one value and finishes.
    ///
    /// ```swift
    /// let once = Signal.just("Saved")
    /// ```
    public static func just(_ value: Output) -> Signal {
        Signal(Just(value))
    }

    /// A signal that finishes without a value.
    ///
    /// ```swift
    /// let nothing = Signal<Void>.empty()
    /// ```
    public static func empty() -> Signal {
        Signal(Empty())
    }

    /// Attaches the subscriber; it receives everything on the main queue.
    public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Never {
        source.subscribe(subscriber)
    }

    /// Subscribes with a closure that runs on the main queue for each value: RxCocoa's `emit(onNext:)`.
    ///
    /// ```swift
    /// signal.emit { toast.show($0) }.store(in: bag)
    /// ```
    ///
    /// **Demand:** `.unlimited`.
    /// **Thread safety:** may be called from any thread; `receiveValue` runs on the main queue.
    public func emit(_ receiveValue: @escaping (Output) -> Void) -> AnyCancellable {
        sink(receiveValue: receiveValue)
    }
}

extension Publisher {
    /// Makes a ``Signal`` that replaces a failure with `value` (then finishes).
    ///
    /// ```swift
    /// let messages = api.messages().asSignal(onErrorJustReturn: "Offline")
    /// ```
    ///
    /// **Demand:** see ``Signal``.
    /// **Thread safety:** see ``Signal``.
    public func asSignal(onErrorJustReturn value: Output) -> Signal<Output> {
        Signal(replaceError(with: value))
    }

    /// Makes a ``Signal`` that continues with `fallback` after a failure.
    ///
    /// ```swift
    /// let events = socket.events().asSignal(onErrorSignalWith: .empty())
    /// ```
    ///
    /// **Demand:** see ``Signal``.
    /// **Thread safety:** see ``Signal``.
    public func asSignal(onErrorSignalWith fallback: Signal<Output>) -> Signal<Output> {
        Signal(self.catch { _ in fallback })
    }

    /// Makes a ``Signal`` that continues with the signal `recover` makes from the failure.
    ///
    /// ```swift
    /// let alerts = api.save().asSignal(onErrorRecover: { .just($0.localizedDescription) })
    /// ```
    ///
    /// **Demand:** see ``Signal``.
    /// **Thread safety:** see ``Signal``; `recover` runs on the thread that delivered the failure.
    public func asSignal(onErrorRecover recover: @escaping (Failure) -> Signal<Output>) -> Signal<Output> {
        Signal(self.catch(recover))
    }
}

extension Publisher where Failure == Never {
    /// Makes a ``Signal`` of a publisher that cannot fail.
    ///
    /// ```swift
    /// let taps = tapRelay.asSignal()
    /// ```
    ///
    /// **Demand:** see ``Signal``.
    /// **Thread safety:** see ``Signal``.
    public func asSignal() -> Signal<Output> {
        Signal(self)
    }
}
