// Files linted together tell each other what syntax cannot see in one file: a subject sent off the main thread in
// another file, a controller whose UIKit base class is declared in another file.

import UntangleLint
import XCTest

final class CrossFileFactsTests: XCTestCase {
    private let rules = RuleSet(rules: [UIUpdateOffMain.description])

    private func describe(_ findings: [[Finding]]) -> [String] {
        findings.flatMap { $0.map { "\($0.path):\($0.line):\($0.column) \($0.ruleID)" } }
    }

    /// `file` alone has no finding; linted after `other`, it has `expected`.
    private func assertFoundOnlyTogether(
        _ file: (String, String), after other: (String, String), _ expected: [String], line: UInt = #line
    ) {
        XCTAssertEqual(describe([Linter.lint(source: file.1, path: file.0, rules: rules)]), [], line: line)
        XCTAssertEqual(describe(Linter.lint(together: [other, file], rules: rules)), expected, line: line)
    }

    func testASubjectSentOffMainInAnotherFileReachesAController() {
        let store = """
            final class Store {
                let changes = PassthroughSubject<Int, Never>()
                func load() {
                    DispatchQueue.global().async { self.changes.send(1) }
                }
            }
            """
        let screen = """
            final class ListViewController: UIViewController {
                func bind(store: Store) {
                    store.changes.sink { [weak self] _ in self?.tableView.reloadData() }.store(in: &cancellables)
                }
            }
            """
        assertFoundOnlyTogether(
            ("List.swift", screen), after: ("Store.swift", store), ["List.swift:3:23 ui-update-off-main"])
    }

    func testAPublishedPropertySetOffMainInAnotherFileReachesAController() {
        let model = """
            final class PurchaseManager: ObservableObject {
                @Published var subscription: Subscription?
                func refresh() {
                    Task.detached { self.subscription = await Store.current() }
                }
            }
            """
        let screen = """
            final class PremiumViewController: UIViewController {
                func bind(manager: PurchaseManager) {
                    manager.$subscription.sink { [weak self] in self?.badge.isHidden = $0 == nil }.store(in: &c)
                }
            }
            """
        assertFoundOnlyTogether(
            ("Premium.swift", screen), after: ("PurchaseManager.swift", model),
            ["Premium.swift:3:31 ui-update-off-main"])
    }

    func testAControllerSubclassingABaseDeclaredElsewhereIsAViewType() {
        let base = """
            class BaseScreen: UIViewController {}
            typealias ScreenBase = BaseScreen
            """
        let screen = """
            final class TabTray: ScreenBase {
                func bind() {
                    tabs.receive(on: DispatchQueue.global()).sink { [weak self] in self?.update($0) }.store(in: &c)
                }
            }
            """
        assertFoundOnlyTogether(
            ("TabTray.swift", screen), after: ("Base.swift", base), ["TabTray.swift:3:50 ui-update-off-main"])
    }

    func testANameDeclaredInSeveralFilesIsNotTrusted() {
        let first = """
            final class A {
                let changes = PassthroughSubject<Int, Never>()
                func load() { DispatchQueue.global().async { self.changes.send(1) } }
            }
            """
        let second = """
            final class B { let changes = PassthroughSubject<Int, Never>() }
            final class ListViewController: UIViewController {
                func bind(b: B) {
                    b.changes.sink { [weak self] _ in self?.tableView.reloadData() }.store(in: &cancellables)
                }
            }
            """
        XCTAssertEqual(
            describe(Linter.lint(together: [("A.swift", first), ("B.swift", second)], rules: rules)), [])
    }

    /// A controller reading `api.latest()`, a publisher method declared in another file.
    private let feedScreen = """
        final class FeedViewController: UIViewController {
            func load() {
                api.latest().sink(receiveCompletion: { _ in }) { [weak self] in self?.title = $0.name }
                    .store(in: &cancellables)
            }
        }
        """

    func testAPublisherMethodReturningADataTaskChainInAnotherFileReachesAController() {
        let api = """
            final class FeedAPI {
                func latest() -> AnyPublisher<Feed, Error> {
                    session.dataTaskPublisher(for: url).map { $0.data }.decode(type: Feed.self, decoder: decoder)
                        .eraseToAnyPublisher()
                }
            }
            """
        assertFoundOnlyTogether(
            ("Feed.swift", feedScreen), after: ("FeedAPI.swift", api), ["Feed.swift:3:22 ui-update-off-main"])
    }

    func testAPublisherPropertySubscribedOnABackgroundQueueInAnotherFileReachesAController() {
        let store = """
            final class BookmarkStore {
                lazy var listPublisher = loader.subscribe(on: DispatchQueue.global()).share()
            }
            """
        let screen = """
            final class BookmarksViewController: NSViewController {
                func bind(store: BookmarkStore) {
                    store.listPublisher.sink { [weak self] in self?.collectionView.reloadData() }.store(in: &c)
                }
            }
            """
        assertFoundOnlyTogether(
            ("Bookmarks.swift", screen), after: ("BookmarkStore.swift", store),
            ["Bookmarks.swift:3:29 ui-update-off-main"])
    }

    func testAPublishedPropertySetInAMethodThatABackgroundSinkCallsReachesAController() {
        let model = """
            final class ItemsModel: ObservableObject {
                @Published var selected: Item?
                init(events: AnyPublisher<Event, Never>) {
                    events.receive(on: DispatchQueue.global()).sink { [weak self] in self?.handle($0) }.store(in: &c)
                }
                private func handle(_ event: Event) { select(event.item) }
                private func select(_ item: Item) { selected = item }
            }
            """
        let screen = """
            final class ItemsCoordinator {
                func start(model: ItemsModel) {
                    model.$selected.sink { [weak self] in self?.navigate(to: $0) }.store(in: &cancellables)
                }
            }
            """
        let controller = screen.replacingOccurrences(
            of: "ItemsCoordinator", with: "ItemsViewController: UIViewController")
        assertFoundOnlyTogether(
            ("Items.swift", controller), after: ("ItemsModel.swift", model), ["Items.swift:3:25 ui-update-off-main"])
    }

    func testAPublishedPropertySetFromAnotherFilesBackgroundWorkReachesAController() {
        let model = """
            final class ProfileModel: ObservableObject {
                @Published var relationship: Relationship = .none
            }
            """
        let loader = """
            final class ProfileLoader {
                func refresh(_ model: ProfileModel) {
                    DispatchQueue.global().async { model.relationship = self.fetch() }
                }
            }
            """
        let screen = """
            final class ProfileHeaderView: UIView {
                func bind(_ model: ProfileModel) {
                    model.$relationship.sink { [weak self] in self?.followButton.isHidden = $0 == .none }
                        .store(in: &cancellables)
                }
            }
            """
        XCTAssertEqual(describe([Linter.lint(source: screen, path: "Header.swift", rules: rules)]), [])
        XCTAssertEqual(
            describe(
                Linter.lint(
                    together: [("Model.swift", model), ("Loader.swift", loader), ("Header.swift", screen)],
                    rules: rules)),
            ["Header.swift:3:29 ui-update-off-main"])
    }

    func testAPublisherThatDeliversOnMainInAnotherFileStaysSilent() {
        let store = """
            final class Store {
                let changes = PassthroughSubject<Int, Never>()
                var mainChanges: AnyPublisher<Int, Never> { changes.receive(on: DispatchQueue.main).eraseToAnyPublisher() }
                func load() { DispatchQueue.global().async { self.changes.send(1) } }
            }
            """
        let screen = """
            final class ListViewController: UIViewController {
                func bind(store: Store) {
                    store.mainChanges.sink { [weak self] _ in self?.tableView.reloadData() }.store(in: &cancellables)
                }
            }
            """
        let unproven = RuleSet(rules: [UIUpdateOffMain.description, UIUpdateUnprovenMain.description])
        // Alone, the audit rule reports the chain it cannot place; together, the other file proves it delivers on main.
        XCTAssertEqual(
            describe([Linter.lint(source: screen, path: "List.swift", rules: unproven)]),
            ["List.swift:3:27 ui-update-unproven-main"])
        XCTAssertEqual(
            describe(Linter.lint(together: [("Store.swift", store), ("List.swift", screen)], rules: unproven)), [])
    }

    func testAMethodCalledFromMainOnlyOrAwaitedDoesNotRunOffMain() {
        let model = """
            final class ItemsModel: ObservableObject {
                @Published var selected: Item?
                init(events: AnyPublisher<Event, Never>) {
                    events.receive(on: DispatchQueue.main).sink { [weak self] in self?.select($0.item) }.store(in: &c)
                    Task.detached { await self.choose(.first) }
                }
                func select(_ item: Item) { selected = item }
                @MainActor func choose(_ item: Item) { selected = item }
            }
            """
        let screen = """
            final class ItemsViewController: UIViewController {
                func bind(model: ItemsModel) {
                    model.$selected.sink { [weak self] in self?.navigate(to: $0) }.store(in: &cancellables)
                }
            }
            """
        XCTAssertEqual(
            describe(Linter.lint(together: [("ItemsModel.swift", model), ("Items.swift", screen)], rules: rules)), [])
    }

    func testAPublisherMemberDeclaredInSeveralFilesIsNotTrusted() {
        let first = """
            final class A {
                func latest() -> AnyPublisher<Feed, Error> { session.dataTaskPublisher(for: url).eraseToAnyPublisher() }
            }
            """
        let second = """
            final class B {
                func latest() -> AnyPublisher<Feed, Error> { cache.eraseToAnyPublisher() }
            }
            """
        XCTAssertEqual(
            describe(
                Linter.lint(
                    together: [("A.swift", first), ("B.swift", second), ("Feed.swift", feedScreen)], rules: rules)),
            [])
    }

    func testTheReceiversDeclaredTypeChoosesAmongTypesDeclaringTheSameName() {
        let manager = """
            final class PurchaseManager {
                @PostPublished private(set) var subscription: Subscription?
                func purchase() async throws {
                    subscription = try await store.buy()
                }
            }
            """
        let list = """
            final class PurchaseListViewModel: ObservableObject {
                @Published var subscription: Subscription?
            }
            """
        let search = """
            final class SearchViewModel: ObservableObject {
                @Published var premiumEnabled = false
                private let purchaseManager: PurchaseManager
                private let listModel = PurchaseListViewModel()
                init(purchaseManager: PurchaseManager) {
                    self.purchaseManager = purchaseManager
                    purchaseManager.$subscription.sink { [weak self] in self?.premiumEnabled = $0 != nil }.store(in: &c)
                    listModel.$subscription.sink { [weak self] in self?.premiumEnabled = $0 != nil }.store(in: &c)
                }
            }
            """
        // `subscription` is declared by two types: only the receiver's type tells which one the chain reads.
        XCTAssertEqual(
            describe(
                Linter.lint(
                    together: [("PurchaseManager.swift", manager), ("List.swift", list), ("Search.swift", search)],
                    rules: rules)),
            ["Search.swift:7:39 ui-update-off-main"])
    }

    // `untangle lint --cross-file` lints the files together; without the option each file alone.
    func testTheCommandLintsFilesTogetherOnlyWithCrossFile() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("cross-file-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try """
        final class Store {
            let changes = PassthroughSubject<Int, Never>()
            func load() { DispatchQueue.global().async { self.changes.send(1) } }
        }
        """.write(to: folder.appendingPathComponent("Store.swift"), atomically: true, encoding: .utf8)
        try """
        final class ListViewController: UIViewController {
            func bind(store: Store) {
                store.changes.sink { [weak self] _ in self?.tableView.reloadData() }.store(in: &cancellables)
            }
        }
        """.write(to: folder.appendingPathComponent("List.swift"), atomically: true, encoding: .utf8)
        let alone = LintCommand.run(arguments: ["--quiet", folder.path])
        let together = LintCommand.run(arguments: ["--quiet", "--cross-file", folder.path])
        XCTAssertEqual(alone.findings.map(\.ruleID), [])
        XCTAssertEqual(together.findings.map { "\($0.line):\($0.column) \($0.ruleID)" }, ["3:23 ui-update-off-main"])
    }
}
