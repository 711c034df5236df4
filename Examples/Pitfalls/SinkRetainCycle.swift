// sink-retain-cycle: self keeps the AnyCancellable, the sink closure keeps self. The view model never deinits.
// untangle:disable-file ui-update-unproven-main -- this example is about the cycle; its publisher delivers on main
import Combine

final class ProfileViewModel {
    @Published var name = ""
    var title = ""
    private var cancellables = Set<AnyCancellable>()

    init(names: AnyPublisher<String, Never>) {
        names
            .sink { value in
                self.title = "Hello, " + value  // the closure captures self strongly
            }
            .store(in: &cancellables)  // finding is on the sink line above
    }
}

// Fixed: capture self weakly.
final class FixedProfileViewModel {
    var title = ""
    private var cancellables = Set<AnyCancellable>()

    init(names: AnyPublisher<String, Never>) {
        names
            .sink { [weak self] value in
                self?.title = "Hello, " + value
            }
            .store(in: &cancellables)
    }
}
