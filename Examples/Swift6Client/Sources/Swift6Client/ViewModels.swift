import Dispatch
import Untangle
import UntangleExtras

/// A service that publishes from any thread: its subject is `Sendable`, and `burst` sends from a task group's child
/// tasks, which run on the global executor, never on the main actor.
public final class CounterService: Sendable {
    public let events = PassthroughSubject<Int, Never>()

    public init() {}

    /// Sends 1 `count` times, from `count` child tasks of a task group.
    public func burst(_ count: Int) async {
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<count {
                group.addTask { self.events.send(1) }
            }
        }
    }
}

/// The safe patterns: every closure formed on the main actor runs after a hop to the main queue.
@MainActor
public final class SafeViewModel: ObservableObject {
    @Published public private(set) var total = 0
    @Published public private(set) var label = ""
    public private(set) var fromValues = 0
    public private(set) var events: [String] = []
    private var cancellables = Set<AnyCancellable>()
    private var task: Task<Void, Never>?

    public init(service: CounterService) {
        service.events
            .receive(on: DispatchQueue.main)
            .sink { [weak self] in self?.total += $0 }
            .store(in: &cancellables)
        service.events
            .receive(on: DispatchQueue.main)
            .map { "received \($0)" }
            .assign(to: &$label)
        service.events
            .receive(on: DispatchQueue.main)
            .handleEvents(receiveOutput: { [weak self] _ in self?.events.append("output") })
            .sink { _ in }
            .store(in: &cancellables)
        // `values` in a task: the loop body runs on the main actor (the task inherits it), with no check needed.
        task = Task { [weak self] in
            for await value in service.events.values {
                self?.fromValues += value
            }
        }
    }

    public func stop() {
        task?.cancel()
        cancellables.removeAll()
    }
}

/// A model whose closures touch no main-actor state, subscribed from nonisolated code: it may run on any thread.
public final class Tally: Sendable {
    private let cancellable: AnyCancellable
    private let seen = Counter()

    public init(service: CounterService) {
        let seen = self.seen
        cancellable = service.events.sink { _ in seen.increment() }
    }

    public var total: Int { seen.value }
}

/// A thread-safe counter (a serial queue owns the value).
public final class Counter: Sendable {
    private let queue = DispatchQueue(label: "Counter")
    nonisolated(unsafe) private var stored = 0

    public init() {}
    public func increment() { queue.sync { stored += 1 } }
    public var value: Int { queue.sync { stored } }
}

/// A `@MainActor` model whose chain runs its closures off the main actor on purpose: each is `@Sendable`, so it is not
/// main-actor isolated and touches no main-actor state. Swift 6 inserts no check into it; the values are counted by
/// the thread-safe `seen` and reach main-actor state only after the hop.
@MainActor
public final class SendableClosuresModel {
    public private(set) var total = 0
    public let seen = Counter()
    private var cancellables = Set<AnyCancellable>()

    public init(service: CounterService) {
        let seen = self.seen
        service.events
            .map { @Sendable value in value * 2 }
            .filter { @Sendable value in value > 0 }
            .handleEvents(receiveOutput: { @Sendable _ in seen.increment() })
            .receive(on: DispatchQueue.main)
            .sink { [weak self] in self?.total += $0 / 2 }
            .store(in: &cancellables)
    }
}

/// The unsafe patterns: a `@MainActor` view model whose closures run before any hop, on the threads that send. Swift 6
/// compiles them; because Untangle is a Swift 5-mode module (as Apple's Combine is), the compiler put its own isolation
/// check into each of these main-actor closures, and it stops the program at the first value delivered off the main
/// thread, exactly as with Apple's Combine.
@MainActor
public final class UnsafeViewModel: ObservableObject {
    @Published public private(set) var total = 0
    public var label = ""
    private var cancellables = Set<AnyCancellable>()

    public enum Pattern: String, Sendable, CaseIterable {
        case sink, map, pureMap, handleEvents, compactMap, scan, tryMap, flatMapLatest, withLatestFrom
    }

    public init(service: CounterService, pattern: Pattern) {
        switch pattern {
        case .sink:
            service.events
                .sink { [weak self] in self?.total += $0 }
                .store(in: &cancellables)
        case .map:
            service.events
                .map { "value \($0)" }
                .receive(on: DispatchQueue.main)  // too late: `map`'s closure runs before the hop
                .sink { [weak self] in self?.label = $0 }
                .store(in: &cancellables)
        case .pureMap:
            // Captures nothing and touches no state, but formed in `@MainActor` code it is main-actor isolated.
            service.events
                .map { $0 * 2 }
                .receive(on: DispatchQueue.main)
                .sink { [weak self] in self?.total += $0 }
                .store(in: &cancellables)
        case .handleEvents:
            service.events
                .handleEvents(receiveOutput: { [weak self] in self?.total += $0 })
                .receive(on: DispatchQueue.main)
                .sink { _ in }
                .store(in: &cancellables)
        case .compactMap:
            service.events
                .compactMap { [weak self] value in self?.total == value ? nil : value }
                .receive(on: DispatchQueue.main)  // too late: `compactMap`'s closure runs before the hop
                .sink { [weak self] in self?.total = $0 }
                .store(in: &cancellables)
        case .scan:
            service.events
                .scan(0) { [weak self] sum, value in
                    self?.label = "scanning"
                    return sum + value
                }
                .receive(on: DispatchQueue.main)
                .sink { [weak self] in self?.total = $0 }
                .store(in: &cancellables)
        case .tryMap:
            service.events
                .tryMap { [weak self] value -> String in
                    self?.label = "mapping"
                    return "value \(value)"
                }
                .receive(on: DispatchQueue.main)
                .sink(receiveCompletion: { _ in }, receiveValue: { [weak self] in self?.label = $0 })
                .store(in: &cancellables)
        case .flatMapLatest:
            // UntangleExtras is a Swift 5-mode module too.
            service.events
                .flatMapLatest { [weak self] value -> Just<Int> in
                    self?.label = "latest"
                    return Just(value)
                }
                .receive(on: DispatchQueue.main)
                .sink { [weak self] in self?.total += $0 }
                .store(in: &cancellables)
        case .withLatestFrom:
            service.events
                .withLatestFrom(Just(1)) { [weak self] value, other -> Int in
                    self?.label = "combined"
                    return value + other
                }
                .receive(on: DispatchQueue.main)
                .sink { [weak self] in self?.total += $0 }
                .store(in: &cancellables)
        }
    }
}
