import Dispatch
import Foundation
import Untangle
import UntangleExtras

/// A service whose events arrive on background threads, as a network or database layer's do.
public final class PriceService {
    public let prices = PassthroughSubject<Int, Never>()
    public let names = PassthroughSubject<String, Never>()

    public init() {}

    /// Sends `count` prices (1...count) from the global queue, concurrently.
    public func sendPrices(_ count: Int) {
        DispatchQueue.global().async {
            DispatchQueue.concurrentPerform(iterations: count) { self.prices.send($0 + 1) }
        }
    }
}

/// The common app shape: a `@MainActor` view model whose pure closures run before the hop, on the sending threads.
/// In Swift 5 mode the compiler inserts no isolation check into them, with Apple's Combine or with Untangle.
@MainActor
public final class PriceViewModel: ObservableObject {
    @Published public private(set) var total = 0
    @Published public private(set) var label = ""
    @Published public private(set) var evenCount = 0
    @Published public private(set) var latestTagged = 0
    public private(set) var received = 0
    private var cancellables = Set<AnyCancellable>()

    public init(service: PriceService) {
        service.prices
            .map { $0 * 2 }  // runs on the sending thread
            .filter { $0 > 0 }
            .compactMap { $0 % 4 == 0 ? $0 : nil }
            .receive(on: DispatchQueue.main)
            .sink { [weak self] _ in self?.evenCount += 1 }
            .store(in: &cancellables)
        service.prices
            .map { $0 }
            .receive(on: DispatchQueue.main)
            .sink { [weak self] value in
                self?.total += value
                self?.received += 1
            }
            .store(in: &cancellables)
        service.prices
            .map { "price \($0)" }
            .receive(on: DispatchQueue.main)
            .assign(to: &$label)
        // UntangleExtras' operators take closures the same way.
        service.prices
            .flatMapLatest { Just($0 + 1_000) }
            .withLatestFrom(Just(1)) { value, one in value * one }
            .receive(on: DispatchQueue.main)
            .sink { [weak self] in self?.latestTagged = max(self?.latestTagged ?? 0, $0) }
            .store(in: &cancellables)
    }
}
