// cancellable-set-from-closure: a Set<AnyCancellable> filled from pool threads. Two threads inserting at once
// corrupt the set (a crash in Set's storage, or a lost AnyCancellable whose subscription ends at once).
import Combine
import Dispatch

final class PriceFeed {
    private var cancellables = Set<AnyCancellable>()

    func start(symbols: [String], source: PriceSource) {
        for symbol in symbols {
            DispatchQueue.global().async {
                source.prices(for: symbol)
                    .sink { print(symbol, $0) }
                    .store(in: &self.cancellables)  // finding: data race on the Set
            }
        }
    }
}

// Fixed: CancelBag is safe from any thread (`store(in: bag)`, no inout).
final class FixedPriceFeed {
    private let bag = CancelBag()

    func start(symbols: [String], source: PriceSource) {
        for symbol in symbols {
            DispatchQueue.global().async {
                source.prices(for: symbol).sink { print(symbol, $0) }.store(in: self.bag)
            }
        }
    }
}
