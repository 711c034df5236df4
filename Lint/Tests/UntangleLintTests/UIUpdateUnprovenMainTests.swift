// ui-update-unproven-main (off by default): a subscriber of a main-bound type updating its state from a chain that
// nothing brings to the main thread.

import UntangleLint
import XCTest

final class UIUpdateUnprovenMainTests: XCTestCase {
    let rule = UIUpdateUnprovenMain.description

    func testAnotherObjectsPublishedPropertyIntoAControllerOrCoordinatorIsReported() {
        let source = """
            final class SavesViewController: UIViewController {
                func bind() {
                    model.$selectedItem.sink { [weak self] item in self?.navigate(to: item) }.store(in: &subscriptions)
                }
            }
            final class HomeCoordinator: NSObject {
                func start() {
                    model.$presentedURL
                        .sink { [weak self] url in self?.present(url) }
                        .store(in: &subscriptions)
                }
            }
            """
        XCTAssertEqual(
            findings(rule, in: source), ["3:29 ui-update-unproven-main", "9:14 ui-update-unproven-main"])
    }

    func testMainSourcesHopsAndOtherTypesAreNotReported() {
        let source = """
            final class SavesViewController: UIViewController {
                func bind() {
                    model.$selectedItem.receive(on: DispatchQueue.main).sink { self.show($0) }.store(in: &subscriptions)
                    button.rx.tap.subscribe(onNext: { self.show(nil) }).disposed(by: disposeBag)
                    button.publisher(for: .touchUpInside).sink { _ in self.show(nil) }.store(in: &subscriptions)
                    Just(1).sink { self.show($0) }.store(in: &subscriptions)
                    model.$title.sink { self.show($0) }
                }
            }
            final class Downloader {
                var files: [URL] = []
                func start() {
                    session.downloads.sink { self.files.append($0) }.store(in: &subscriptions)
                }
            }
            """
        XCTAssertEqual(findings(rule, in: source), [])
    }
}
