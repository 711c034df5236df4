import Dispatch
import Untangle

/// A publisher for driving UI, RxCocoa's `Driver`: it never fails, delivers on the main queue through
/// ``MainThreadScheduler`` (in line when already there), and shares one subscription to its source among all
/// subscribers, replaying the latest value to each new one.
///
/// Make one with `asDriver(onErrorJustReturn:)`, `asDriver(onErrorDriveWith:)`, `asDriver(onErrorRecover:)`, or
/// `asDriver()` for a publisher that cannot fail; consume it with ``drive(_:)`` (or any subscriber).
///
/// ```swift
/// let title: Driver<String> = viewModel.title.asDriver(onErrorJustReturn: "")
/// let cancellable = title.drive { label.text = $0 }      // on the main queue
/// ```
///
/// It is RxCocoa's composition: `replaceError/catch` → `receive(on: MainThreadScheduler.shared)` →
/// `share(replay: 1)`. The source runs where it runs; a value it sends on the main queue is delivered in line (as
/// RxSwift's `MainScheduler` does), one sent from another thread hops to the main queue. The source is shared while
/// anyone is subscribed (the last cancel disconnects it, and the next subscriber connects again, as `share(replay:)`
/// documents), and a subscriber receives the replayed latest value inside `subscribe`, on the subscribing thread: a
/// label driven from `viewDidLoad` shows its value at once. Operators applied to a driver return ordinary publishers
/// that still deliver on the main queue (unless they change threads); call `asDriver()` again to share the result.
///
/// **Demand:** as `receive(on:)` followed by `share(replay: 1)`: each subscriber's demand is its own; a subscriber
/// without demand keeps only the newest value.
/// **Thread safety:** may be subscribed and cancelled from any thread; values and the completion are delivered on
/// the main queue (the replayed value on the subscribing thread), one at a time per subscriber.
public struct Driver<Output>: Publisher {
    /// A driver never fails.
    public typealias Failure = Never

    @usableFromInline let source: AnyPublisher<Output, Never>

    /// Wraps a publisher that cannot fail: it is delivered on the main queue (in line when already there) and
    /// shared with replay of the latest value.
    // Inlinable, so that the chain is erased where its type is known: the eraser's entry points and the share's
    // subscription are then specialized in the caller (see `AnyPublisher` and `ShareReplayCore`), with no
    // type-metadata lookup per value.
    @inlinable
    public init<P: Publisher>(_ publisher: P) where P.Output == Output, P.Failure == Never {
        source = publisher.receive(on: MainThreadScheduler.shared).share(replay: 1).eraseToAnyPublisher()
    }

    /// A driver that delivers one value and finishes.
    ///
    /// ```swift
    /// let placeholder = Driver.just("—")
    /// ```
    public static func just(_ value: Output) -> Driver {
        Driver(Just(value))
    }

    /// A driver that finishes without a value.
    ///
    /// ```swift
    /// let nothing = Driver<Int>.empty()
    /// ```
    public static func empty() -> Driver {
        Driver(Empty())
    }

    /// Attaches the subscriber; it receives everything on the main queue (the replayed value inside this call).
    public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Never {
        source.subscribe(subscriber)
    }

    /// Subscribes with a closure that runs on the main queue for each value.
    ///
    /// ```swift
    /// driver.drive { label.text = $0 }.store(in: &cancellables)
    /// ```
    ///
    /// **Demand:** `.unlimited`.
    /// **Thread safety:** may be called from any thread; `receiveValue` runs on the main queue.
    public func drive(_ receiveValue: @escaping (Output) -> Void)
        -> AnyCancellable
    {
        return sink(receiveValue: receiveValue)
    }
}

extension Publisher {
    /// Makes a ``Driver`` that replaces a failure with `value` (then finishes).
    ///
    /// ```swift
    /// let items = api.items().asDriver(onErrorJustReturn: [])
    /// ```
    ///
    /// **Demand:** see ``Driver``.
    /// **Thread safety:** see ``Driver``.
    public func asDriver(onErrorJustReturn value: Output) -> Driver<Output> {
        Driver(replaceError(with: value))
    }

    /// Makes a ``Driver`` that continues with `fallback` after a failure.
    ///
    /// ```swift
    /// let items = api.items().asDriver(onErrorDriveWith: cache.items)
    /// ```
    ///
    /// **Demand:** see ``Driver``.
    /// **Thread safety:** see ``Driver``.
    public func asDriver(onErrorDriveWith fallback: Driver<Output>) -> Driver<Output> {
        Driver(self.catch { _ in fallback })
    }

    /// Makes a ``Driver`` that continues with the driver `recover` makes from the failure.
    ///
    /// ```swift
    /// let message = api.status().asDriver(onErrorRecover: { error in .just(error.localizedDescription) })
    /// ```
    ///
    /// **Demand:** see ``Driver``.
    /// **Thread safety:** see ``Driver``; `recover` runs on the thread that delivered the failure.
    public func asDriver(
        onErrorRecover recover: @escaping (Failure) -> Driver<Output>
    ) -> Driver<Output> {
        return Driver(self.catch(recover))
    }
}

extension Publisher where Failure == Never {
    /// Makes a ``Driver`` of a publisher that cannot fail.
    ///
    /// ```swift
    /// let count = counter.asDriver()
    /// ```
    ///
    /// **Demand:** see ``Driver``.
    /// **Thread safety:** see ``Driver``.
    public func asDriver() -> Driver<Output> {
        Driver(self)
    }
}
