// published-stale-read: a subscriber of `object.$property` that reads the property through its object (or writes it,
// or calls the object) while `@Published` is still in `willSet`; `objectWillChange` subscribers that read the state.

import UntangleLint
import XCTest

final class PublishedStaleReadTests: XCTestCase {
    let rule = PublishedStaleRead.description

    /// Brave's tabs bar (the corpus of real fixes, C013): the subscriber of `privateBrowsingManager.$isPrivateBrowsing`
    /// calls a method that reads `isPrivateBrowsing` through the same path: the old value, until the fix's
    /// `receive(on: RunLoop.main)`.
    func testAMethodTheSubscriberCallsReadsTheObservedPropertyThroughItsObject() {
        let source = """
            final class TabsBarViewController: UIViewController {
                weak var tabManager: TabManager?
                var cancellable: AnyCancellable?
                func observe() {
                    cancellable = tabManager?.privateBrowsingManager
                        .$isPrivateBrowsing
                        .removeDuplicates()
                        .sink(receiveValue: { [weak self] isPrivate in
                            guard let self = self else { return }
                            self.updateMenu()
                            self.updateColors(isPrivate)
                        })
                }
                func updateMenu() {
                    let isPrivate = tabManager?.privateBrowsingManager.isPrivateBrowsing == true
                    print(isPrivate)
                }
                func updateColors(_ isPrivate: Bool) {}
            }
            """
        XCTAssertEqual(findings(rule, in: source), ["8:14 published-stale-read"])
    }

    /// Brave's tab tray (C030): the subscriber asks UIKit for the status bar again, which reads the controller's
    /// `preferredStatusBarStyle` within the call, and that getter reads the observed property.
    func testAStatusBarUpdateReadsTheObservedPropertyInPreferredStatusBarStyle() {
        let source = """
            final class TabTrayController: UIViewController {
                let tabManager: TabManager
                var cancellable: AnyCancellable?
                override var preferredStatusBarStyle: UIStatusBarStyle {
                    if tabManager.privateBrowsingManager.isPrivateBrowsing { return .lightContent }
                    return .darkContent
                }
                override func viewDidLoad() {
                    cancellable = tabManager.privateBrowsingManager.$isPrivateBrowsing
                        .sink(receiveValue: { [weak self] isPrivate in self?.updateColors(isPrivate) })
                }
                private func updateColors(_ isPrivate: Bool) {
                    overrideUserInterfaceStyle = isPrivate ? .dark : .unspecified
                    setNeedsStatusBarAppearanceUpdate()
                }
            }
            final class FixedTabTrayController: UIViewController {
                let tabManager: TabManager
                var cancellable: AnyCancellable?
                override var preferredStatusBarStyle: UIStatusBarStyle {
                    if tabManager.privateBrowsingManager.isPrivateBrowsing { return .lightContent }
                    return .darkContent
                }
                override func viewDidLoad() {
                    cancellable = tabManager.privateBrowsingManager.$isPrivateBrowsing
                        .receive(on: RunLoop.main)
                        .sink(receiveValue: { [weak self] isPrivate in self?.updateColors(isPrivate) })
                }
                private func updateColors(_ isPrivate: Bool) {
                    setNeedsStatusBarAppearanceUpdate()
                }
            }
            """
        XCTAssertEqual(findings(rule, in: source), ["10:14 published-stale-read"])
    }

    /// The read in the closure itself, a write of the observed property (re-entered, then overwritten by the outer
    /// assignment), a method call on the object, a method reference as the subscriber, the object passed to a method
    /// under another name, `self`'s own `$property` read bare in a method, and `objectWillChange` with a read of the
    /// file's `@Published` property.
    func testReadsWritesCallsAndObjectWillChangeAreReported() {
        let source = """
            final class Coordinator {
                let model: Model
                var subscriptions = Set<AnyCancellable>()
                func start() {
                    model.$selection.sink { [weak self] _ in
                        self?.render(self?.model.selection)
                    }.store(in: &subscriptions)
                    model.$selection.sink { [weak self] item in
                        if item == nil { self?.model.selection = .first }
                    }.store(in: &subscriptions)
                    model.$query.sink { _ in
                        self.model.refresh()
                    }.store(in: &subscriptions)
                    model.$filter.sink(receiveValue: handleFilter).store(in: &subscriptions)
                }
                func show(_ detail: Detail) {
                    detail.$isEditing.sink { [weak self] _ in
                        self?.configure(with: detail)
                    }.store(in: &subscriptions)
                }
                func configure(with item: Detail) {
                    title = item.isEditing ? "Edit" : "View"
                }
                func handleFilter(_ value: Filter) {
                    apply(model.filter)
                }
                func render(_ item: Item?) {}
                func apply(_ filter: Filter) {}
            }
            final class Model: ObservableObject {
                @Published var count = 0
                var cancellables = Set<AnyCancellable>()
                init() {
                    $count.sink { [weak self] _ in self?.log() }.store(in: &cancellables)
                    objectWillChange.sink { [weak self] in print(self?.count ?? 0) }.store(in: &cancellables)
                }
                func log() { print(count) }
            }
            """
        XCTAssertEqual(
            findings(rule, in: source),
            [
                "5:26 published-stale-read", "8:26 published-stale-read", "11:22 published-stale-read",
                "14:23 published-stale-read", "17:27 published-stale-read", "34:16 published-stale-read",
                "35:26 published-stale-read",
            ])
    }

    /// The fixes and the harmless forms: `receive(on:)` (or any scheduler or time operator) defers the subscriber;
    /// the value passed to the subscriber; another property of the object; a read in a nested closure that runs later;
    /// a path from a local that a called method cannot see; overloads that syntax cannot tell apart; the anonymous
    /// `$0`; `objectWillChange` forwarded without reading the state; test code.
    func testDeferredSubscribersThePassedValueAndLaterClosuresAreNotReported() {
        let source = """
            final class Coordinator {
                let model: Model
                var subscriptions = Set<AnyCancellable>()
                func start() {
                    model.$selection.receive(on: DispatchQueue.main).sink { [weak self] _ in
                        self?.render(self?.model.selection)
                    }.store(in: &subscriptions)
                    model.$selection.debounce(for: 0.1, scheduler: RunLoop.main).sink { [weak self] _ in
                        self?.render(self?.model.selection)
                    }.store(in: &subscriptions)
                    model.$selection.sink { [weak self] item in
                        self?.render(item)
                        self?.render(self?.model.other)
                        DispatchQueue.main.async { self?.render(self?.model.selection) }
                    }.store(in: &subscriptions)
                    let local = Model()
                    local.$selection.sink { [weak self] _ in self?.readModel() }.store(in: &subscriptions)
                    model.$selection.sink { [weak self] _ in self?.show(nil) }.store(in: &subscriptions)
                    items.map { $0.sink { _ in } }
                }
                func readModel() { render(local.selection) }
                func show(_ a: A?) { render(model.selection) }
                func show(_ b: B?) {}
                func render(_ item: Item?) {}
            }
            final class Options: ObservableObject {
                private let subject = PassthroughSubject<Void, Never>()
                var cancellable: AnyCancellable?
                init() {
                    cancellable = objectWillChange.sink { [weak self] in self?.subject.send() }
                }
            }
            """
        XCTAssertEqual(findings(rule, in: source), [])
        let test = """
            import XCTest
            final class ViewStoreTests: XCTestCase {
                func testWillSet() {
                    viewStore.objectWillChange.sink { _ in results.append(viewStore.state) }.store(in: &cancellables)
                    store.$balance.sink { _ in store.tapMax() }.store(in: &cancellables)
                }
            }
            """
        XCTAssertEqual(findings(rule, in: test), [])
    }
}
