// ui-update-off-main: URLSession delivers on a background queue; the sink sets a label and a @Published property there
// (UIKit asserts or corrupts the view; SwiftUI warns "Publishing changes from background threads").
import Combine
import UIKit

final class AvatarViewController: UIViewController {
    let nameLabel = UILabel()
    private var cancellables = Set<AnyCancellable>()

    func load(_ url: URL) {
        URLSession.shared.dataTaskPublisher(for: url)
            .map { String(decoding: $0.data, as: UTF8.self) }
            .replaceError(with: "")
            .sink { [weak self] name in  // finding
                self?.nameLabel.text = name
            }
            .store(in: &cancellables)
    }
}

// Fixed: hop to the main queue before the subscriber.
final class FixedAvatarViewController: UIViewController {
    let nameLabel = UILabel()
    private var cancellables = Set<AnyCancellable>()

    func load(_ url: URL) {
        URLSession.shared.dataTaskPublisher(for: url)
            .map { String(decoding: $0.data, as: UTF8.self) }
            .replaceError(with: "")
            .receive(on: DispatchQueue.main)
            .sink { [weak self] name in
                self?.nameLabel.text = name
            }
            .store(in: &cancellables)
    }
}
