// ui-update-unproven-main (off by default): the coordinator presents screens from a view model's @Published property,
// which another object sets, possibly from a background thread; nothing in the chain brings values to main.
import Combine
import UIKit

final class ReaderCoordinator {
    let navigationController = UINavigationController()
    private var subscriptions: [AnyCancellable] = []

    func start(model: ReaderViewModel) {
        model.$selectedArticle
            .compactMap { $0 }
            .sink { [weak self] article in  // finding
                self?.navigationController.pushViewController(ArticleViewController(article), animated: true)
            }
            .store(in: &subscriptions)
    }
}

// Fixed: the chain says where its values arrive.
final class FixedReaderCoordinator {
    let navigationController = UINavigationController()
    private var subscriptions: [AnyCancellable] = []

    func start(model: ReaderViewModel) {
        model.$selectedArticle
            .compactMap { $0 }
            .receive(on: DispatchQueue.main)
            .sink { [weak self] article in
                self?.navigationController.pushViewController(ArticleViewController(article), animated: true)
            }
            .store(in: &subscriptions)
    }
}
