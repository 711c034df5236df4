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
