// The disposal family: DisposeBag → CancelBag, disposed(by:) → store(in:), dispose() → cancel(), Disposables.create →
// AnyCancellable, composite and serial disposables.

import UntangleLint
import XCTest

final class DisposalRulesTests: XCTestCase {
    func testBagsAndDisposal() {
        assertMigrates(
            rxFile(
                """
                final class Screen {
                    var bag = DisposeBag()
                    var loading: Disposable?

                    func reset() {
                        bag = DisposeBag()
                        loading?.dispose()
                    }

                    func bind(_ items: Observable<Int>) {
                        loading = items.subscribe()
                        items
                            .subscribe(onNext: { print($0) })
                            .disposed(by: bag)
                        bag.insert(loading!, items.subscribe())
                    }
                }

                """),
            to: untangledFile(
                """
                final class Screen {
                    var bag = CancelBag()
                    var loading: AnyCancellable?

                    func reset() {
                        bag = CancelBag()
                        loading?.cancel()
                    }

                    func bind(_ items: AnyPublisher<Int, Error>) {
                        loading = items.sink(receiveCompletion: { _ in }, receiveValue: { _ in })
                        items
                            .sink(receiveCompletion: { _ in }, receiveValue: { print($0) })
                            .store(in: bag)
                        bag.insert { loading!; items.sink(receiveCompletion: { _ in }, receiveValue: { _ in }) }
                    }
                }

                """))
    }

    func testDisposablesCreate() {
        assertMigrates(
            rxFile(
                """
                let none = Disposables.create()
                let hook = Disposables.create { print("disposed") }
                let named = Disposables.create(with: stop)
                let both = Disposables.create(first, second)

                """),
            to: untangledFile(
                """
                let none = AnyCancellable {}
                let hook = AnyCancellable { print("disposed") }
                let named = AnyCancellable(stop)
                let both = AnyCancellable(CompositeCancellable([first, second]))

                """))
    }

    func testCompositeAndSerialDisposables() {
        assertMigrates(
            rxFile(
                """
                let composite = CompositeDisposable(a, b)
                let serial = SerialDisposable()
                serial.disposable = a
                let single = SingleAssignmentDisposable()
                single.setDisposable(b)

                """),
            to: untangledFile(
                """
                let composite = CompositeCancellable([a, b])
                let serial = SerialCancellable()
                serial.replace(with: a)
                let single = SerialCancellable()
                single.replace(with: b)

                """))
    }

    func testDisposablesCreateWithAnArray() {
        assertMigrates(
            rxFile("let both = Disposables.create([first, second])\n"),
            to: untangledFile("let both = AnyCancellable(CompositeCancellable([first, second]))\n"))
    }

    func testIsDisposedOfACompositeOrSerialDisposableIsIsCancelled() {
        // Parity program Disposables.
        assertMigrates(
            rxFile(
                """
                let composite = CompositeDisposable()
                let serial = SerialDisposable()
                print(composite.isDisposed, serial.isDisposed, other.isDisposed)

                """),
            to: untangledFile(
                """
                let composite = CompositeCancellable()
                let serial = SerialCancellable()
                print(composite.isCancelled, serial.isCancelled, other.isDisposed)

                """))
    }
}
