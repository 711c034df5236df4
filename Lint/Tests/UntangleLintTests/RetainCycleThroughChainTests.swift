// sink-retain-cycle and rx-subscribe-retain-cycle through the rest of the chain: operator closures, method
// references, RxSwift's event subscription.

import UntangleLint
import XCTest

final class RetainCycleThroughChainTests: XCTestCase {
    func testOperatorClosuresAndMethodReferencesInAStoredChainAreReported() {
        let source = """
            final class Model {
                func bind(input: AnyPublisher<Int, Never>) {
                    input
                        .map { self.transform($0) }
                        .sink(receiveValue: handle)
                        .store(in: &cancellables)
                    input.filter(isValid).sink { [weak self] in self?.handle($0) }.store(in: &cancellables)
                }
                func transform(_ value: Int) -> Int { value }
                func handle(_ value: Int) {}
                func isValid(_ value: Int) -> Bool { true }
            }
            """
        XCTAssertEqual(
            findings(SinkRetainCycle.description, in: source),
            ["4:14 sink-retain-cycle", "5:14 sink-retain-cycle", "7:15 sink-retain-cycle"])
    }

    func testRxEventSubscriptionAndScanClosuresAreReported() {
        let source = """
            final class SearchViewController: UIViewController {
                func bind() {
                    tableView.rx.contentOffset
                        .subscribe { _ in self.searchBar.resignFirstResponder() }
                        .disposed(by: disposeBag)
                    commands.scan(State()) { state, command in self.reduce(state, command) }
                        .subscribe(onNext: { [weak self] in self?.render($0) })
                        .disposed(by: disposeBag)
                }
            }
            """
        XCTAssertEqual(
            findings(RxSubscribeRetainCycle.description, in: source),
            ["4:14 rx-subscribe-retain-cycle", "6:18 rx-subscribe-retain-cycle"])
    }

    func testWeakCapturesParametersAndUnstoredChainsAreNotReported() {
        let source = """
            final class Model {
                func bind(input: AnyPublisher<Int, Never>, handle: @escaping (Int) -> Void) {
                    input.map { [weak self] in self?.transform($0) ?? 0 }.sink(receiveValue: handle)
                        .store(in: &cancellables)
                    let local = input.map { self.transform($0) }.sink { _ in }
                    _ = local
                }
                func transform(_ value: Int) -> Int { value }
                func handle(_ value: Int) {}
            }
            """
        XCTAssertEqual(findings(SinkRetainCycle.description, in: source), [])
    }
}
