// published-stale-read: @Published sends from willSet, so the subscriber runs before the new value is stored; the
// method it calls reads the property through the model and sees the old value (Brave's tabs bar read its private
// browsing flag this way): leaving private browsing stops recording, entering it starts.
import Combine

final class HistoryRecorder {
    let browsing: BrowsingModel
    private(set) var isRecording = true
    private var cancellables = Set<AnyCancellable>()

    init(browsing: BrowsingModel) { self.browsing = browsing }

    func start() {
        browsing.$isPrivate
            .sink { [weak self] _ in  // finding
                self?.updateRecording()
            }
            .store(in: &cancellables)
    }

    private func updateRecording() {
        isRecording = !browsing.isPrivate  // the old value
    }
}

// Fixed: use the value the subscriber is passed (or defer it with receive(on: DispatchQueue.main)).
final class FixedHistoryRecorder {
    let browsing: BrowsingModel
    private(set) var isRecording = true
    private var cancellables = Set<AnyCancellable>()

    init(browsing: BrowsingModel) { self.browsing = browsing }

    func start() {
        browsing.$isPrivate
            .sink { [weak self] isPrivate in
                self?.updateRecording(isPrivate: isPrivate)
            }
            .store(in: &cancellables)
    }

    private func updateRecording(isPrivate: Bool) {
        isRecording = !isPrivate
    }
}

final class BrowsingModel: ObservableObject {
    @Published var isPrivate = false
}
