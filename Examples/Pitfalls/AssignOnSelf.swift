// assign-on-self: assign(to:on: self) retains self, and self keeps the subscription.
import Combine

final class SearchModel {
    @Published var results: [String] = []
    private var cancellables = Set<AnyCancellable>()

    init(search: AnyPublisher<[String], Never>) {
        search.assign(to: \.results, on: self).store(in: &cancellables)  // finding
    }
}

// Fixed: assign(to: &$results) ends with the property's owner.
final class FixedSearchModel {
    @Published var results: [String] = []

    init(search: AnyPublisher<[String], Never>) {
        search.assign(to: &$results)
    }
}
