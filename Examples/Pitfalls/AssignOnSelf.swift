// assign-on-self: assign(to:on: self) retains self, and self keeps the subscription.
// untangle:disable-file ui-update-unproven-main -- this example is about the cycle; its publisher delivers on main
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
