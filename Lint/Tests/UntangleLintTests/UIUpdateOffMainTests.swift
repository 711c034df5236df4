// ui-update-off-main: a subscriber that updates main-thread state from a chain that syntax proves delivers off the
// main thread.

import UntangleLint
import XCTest

final class UIUpdateOffMainTests: XCTestCase {
    let rule = UIUpdateOffMain.description

    func testURLSessionPublisherIntoAViewControllerIsReported() {
        let source = """
            final class ProfileViewController: UIViewController {
                func load() {
                    URLSession.shared.dataTaskPublisher(for: url)
                        .map(\\.data)
                        .sink(receiveCompletion: { _ in }, receiveValue: { self.label.text = "\\($0)" })
                        .store(in: &cancellables)
                }
            }
            """
        XCTAssertEqual(findings(rule, in: source), ["5:14 ui-update-off-main"])
    }

    func testBackgroundSchedulersBeforeTheSubscriberAreReported() {
        let source = """
            final class FeedViewModel: ObservableObject {
                @Published var items: [Int] = []
                private let work = DispatchQueue(label: "feed")
                private let disposeBag = DisposeBag()
                init(source: AnyPublisher<[Int], Never>, rx: Observable<[Int]>) {
                    source.subscribe(on: work).sink { self.items = $0 }.store(in: &cancellables)
                    source.receive(on: DispatchQueue.global()).assign(to: &$items)
                    rx.observe(on: ConcurrentDispatchQueueScheduler(qos: .background))
                        .subscribe(onNext: { [weak self] in self?.items = $0 })
                        .disposed(by: disposeBag)
                }
            }
            """
        XCTAssertEqual(
            findings(rule, in: source),
            ["6:36 ui-update-off-main", "7:52 ui-update-off-main", "9:14 ui-update-off-main"])
    }

    func testSubjectSentFromAGlobalQueueInTheSameFileIsReported() {
        let source = """
            final class Loader {
                let results = PassthroughSubject<[String], Never>()
                func reload() {
                    DispatchQueue.global().async { self.results.send(self.fetch()) }
                }
            }
            final class ListViewController: UITableViewController {
                func bind(loader: Loader) {
                    loader.results.sink { [weak self] _ in self?.tableView.reloadData() }.store(in: &cancellables)
                }
            }
            """
        XCTAssertEqual(findings(rule, in: source), ["9:24 ui-update-off-main"])
    }

    // A nonisolated async method runs on the global executor: what it sends arrives off the main thread.
    func testSubjectSentFromAnAsyncMethodOfAPlainTypeIsReported() {
        let source = """
            final class MembersStore {
                let members = CurrentValueSubject<[String], Never>([])
                func refresh() async {
                    members.value = await api.members()
                }
            }
            @MainActor final class MembersStoreUI {
                let names = PassthroughSubject<[String], Never>()
                func refresh() async { names.send([]) }
            }
            final class MembersViewController: UIViewController {
                func bind(store: MembersStore, ui: MembersStoreUI) {
                    store.members.sink { [weak self] in self?.title = $0.first }.store(in: &cancellables)
                    ui.names.sink { [weak self] in self?.title = $0.first }.store(in: &cancellables)
                }
            }
            """
        XCTAssertEqual(findings(rule, in: source), ["13:23 ui-update-off-main"])
    }

    func testCoreDataSaveNotificationsOfEveryContextAreReported() {
        let source = """
            final class HomeViewModel {
                @Published var snapshot = Snapshot()
                init() {
                    NotificationCenter.default.publisher(for: NSManagedObjectContext.didSaveObjectsNotification, object: nil)
                        .sink { [weak self] _ in self?.snapshot = Snapshot() }
                        .store(in: &subscriptions)
                }
            }
            """
        XCTAssertEqual(findings(rule, in: source), ["5:14 ui-update-off-main"])
    }

    // subscribe(on: main), written for main-thread delivery, moves only the subscription.
    func testSubscribeOnMainInsteadOfReceiveOnMainIsReported() {
        let source = """
            final class Tab: NSObject {
                @Published var title = ""
                func observe() {
                    reconfigurations.subscribe(on: DispatchQueue.main).sink { _ in self.title = "" }.store(in: &c)
                    reconfigurations.subscribe(on: DispatchQueue.main).receive(on: RunLoop.main)
                        .sink { _ in self.title = "" }.store(in: &c)
                }
            }
            """
        XCTAssertEqual(findings(rule, in: source), ["4:60 ui-update-off-main"])
    }

    /// DuckDuckGo's `Tab` (an `ObservableObject`): `subscribe(on: DispatchQueue.main)` before a sink that reconfigures
    /// its web view. The operator says the author wanted the values on main; in a main-bound type any use of `self`
    /// then counts, not only a `@Published` write. Outside a main-bound type it does not.
    func testSubscribeOnMainInAMainBoundTypeCountsEveryUseOfSelf() {
        let source = """
            final class Tab: NSObject, ObservableObject {
                func subscribe() {
                    c = Manager.publisher().subscribe(on: DispatchQueue.main).sink { _ in self.reconfigure() }
                }
            }
            final class Downloader {
                func subscribe() {
                    c = Manager.publisher().subscribe(on: DispatchQueue.main).sink { _ in self.reconfigure() }
                }
            }
            """
        XCTAssertEqual(findings(rule, in: source), ["3:67 ui-update-off-main"])
        XCTAssertEqual(findings(UIUpdateUnprovenMain.description, in: source), [])
    }

    func testHopsToMainAndNonUIWorkAreNotReported() {
        let source = """
            final class ProfileViewController: UIViewController {
                func load() {
                    URLSession.shared.dataTaskPublisher(for: url)
                        .receive(on: DispatchQueue.main)
                        .sink(receiveCompletion: { _ in }, receiveValue: { self.label.text = "\\($0)" })
                        .store(in: &cancellables)
                    URLSession.shared.dataTaskPublisher(for: url)
                        .receive(on: RunLoop.main)
                        .sink { self.label.text = "\\($0)" }
                        .store(in: &cancellables)
                    URLSession.shared.dataTaskPublisher(for: url)
                        .sink { value in DispatchQueue.main.async { self.label.text = "\\(value)" } }
                        .store(in: &cancellables)
                    rx.observe(on: MainScheduler.instance).subscribe(onNext: { self.label.text = $0 }).disposed(by: bag)
                    unknownSource.sink { self.label.text = $0 }.store(in: &cancellables)
                }
            }
            final class Cache {
                var entries: [Data] = []
                func fill() {
                    URLSession.shared.dataTaskPublisher(for: url).sink { self.entries.append($0.data) }.store(in: &c)
                }
            }
            """
        XCTAssertEqual(findings(rule, in: source), [])
    }
}
