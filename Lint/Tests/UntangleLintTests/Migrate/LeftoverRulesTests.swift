// The leftovers family: RxCocoa's reactive extensions and RxBlocking are marked with what to do.

import UntangleLint
import XCTest

final class LeftoverRulesTests: XCTestCase {
    func testReactiveExtensionsAreMarkedOncePerStatement() {
        assertMigrates(
            rxFile(
                """
                func bind() {
                    button.rx.tap
                        .subscribe(onNext: { [weak self] in self?.save() })
                        .disposed(by: bag)
                }

                """),
            to: untangledFile(
                """
                func bind() {
                    // untangle-migrate: RxCocoa's button.rx.tap: no Untangle counterpart; publish it yourself (a relay fed by the control's target-action or delegate)
                    button.rx.tap
                        .sink(receiveCompletion: { _ in }, receiveValue: { [weak self] in self?.save() })
                        .store(in: bag)
                }

                """),
            spots: [
                "RxCocoa's button.rx.tap: no Untangle counterpart; publish it yourself (a relay fed by the control's "
                    + "target-action or delegate)"
            ])
    }
}
