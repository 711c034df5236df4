// The subscribe family: subscribe(onNext:onError:onCompleted:onDisposed:), the traits' onSuccess/onFailure,
// subscribe(with:), dropped subscriptions, bind(to:), bind(onNext:), drive and emit.

import UntangleLint
import XCTest

final class SubscribeRulesTests: XCTestCase {
    func testHandlersBecomeOneCompletionClosureAndAValueClosure() {
        assertMigrates(
            rxFile(
                """
                items
                    .subscribe(
                        onNext: { [weak self] items in self?.show(items) },
                        onError: { [weak self] in self?.fail($0) },
                        onCompleted: { [weak self] in
                            self?.done()
                            print("done")
                        }
                    )
                    .disposed(by: bag)

                """),
            to: untangledFile(
                """
                items
                    .sink(
                        receiveCompletion: { [weak self] completion in
                            switch completion {
                            case .failure(let error):
                                self?.fail(error)
                            case .finished:
                                self?.done()
                                print("done")
                            }
                        },
                        receiveValue: { [weak self] items in self?.show(items) }
                    )
                    .store(in: bag)

                """))
    }

    func testAnErrorHandlerAloneKeepsItsBodyInPlace() {
        assertMigrates(
            rxFile(
                """
                api.save().subscribe(onError: { [weak self] error in
                    self?.show(error)
                }).disposed(by: bag)
                api.save().subscribe(onError: handle).disposed(by: bag)

                """),
            to: untangledFile(
                """
                api.save().sink(receiveCompletion: { [weak self] completion in
                    guard case .failure(let error) = completion else { return }
                    self?.show(error)
                }, receiveValue: { _ in }).store(in: bag)
                api.save().sink(receiveCompletion: { completion in if case .failure(let error) = completion { handle(error) } }, receiveValue: { _ in }).store(in: bag)

                """))
    }

    func testASourceThatCannotFailNeedsNoCompletionClosure() {
        assertMigrates(
            rxFile(
                """
                let relay = PublishRelay<Int>()
                relay.subscribe(onNext: { print($0) }).disposed(by: bag)

                """),
            to: untangledFile(
                """
                let relay = PassthroughRelay<Int>()
                relay.sink(receiveValue: { print($0) }).store(in: bag)

                """))
    }

    func testOnDisposedRunsAfterTheEndThroughHandleTermination() {
        assertMigrates(
            rxFile("o.subscribe(onNext: { print($0) }, onDisposed: { print(\"disposed\") }).disposed(by: bag)\n"),
            to: untangledFile(
                "o.handleTermination { print(\"disposed\") }.sink(receiveCompletion: { _ in }, receiveValue: { print($0) }).store(in: bag)\n"
            ))
    }

    // Regression (issue 30): `_ = publisher.sink { }` is cancelled at once, while RxSwift's dropped subscription
    // runs until the source ends.
    func testADroppedSubscriptionLivesUntilTheSourceEnds() {
        assertMigrates(
            rxFile(
                """
                _ = ticks.subscribe(onNext: { print($0) })
                ticks.subscribe(onCompleted: { print("end") })

                """),
            to: untangledFile(
                """
                ticks.subscribe(Subscribers.Sink(receiveCompletion: { _ in }, receiveValue: { print($0) }))
                ticks.subscribe(Subscribers.Sink(receiveCompletion: { completion in if case .finished = completion { print("end") } }, receiveValue: { _ in }))

                """))
    }

    func testSubscribeWithAnOwnerHoldsItWeakly() {
        assertMigrates(
            rxFile("items.subscribe(with: self, onNext: { owner, items in owner.show(items) }).disposed(by: bag)\n"),
            to: untangledFile(
                "items.sink(receiveCompletion: { _ in }, receiveValue: { [weak self] items in guard let owner = self else { return }; owner.show(items) }).store(in: bag)\n"
            ))
    }

    func testTraitHandlers() {
        assertMigrates(
            rxFile("user.subscribe(onSuccess: { print($0) }, onFailure: { print($0) }).disposed(by: bag)\n"),
            to: untangledFile(
                "user.sink(receiveCompletion: { completion in if case .failure(let error) = completion { print(error) } }, receiveValue: { print($0) }).store(in: bag)\n"
            ))
    }

    func testMaybeOnCompletedRunsOnlyForAnEmptyMaybe() {
        // RxSwift calls a Maybe's onCompleted only when it ends without a value; the migrated Maybe finishes after
        // its value too, so an empty one becomes a nil value (parity program CompletableMaybe).
        assertMigrates(
            rxFile(
                """
                cached(key)
                    .subscribe(
                        onSuccess: { print("success \\($0)") },
                        onError: { print("error \\($0)") },
                        onCompleted: { print("empty") }
                    )
                    .disposed(by: bag)

                """),
            to: untangledFile(
                """
                cached(key)
                    .map { Optional.some($0) }
                    .replaceEmpty(with: nil)
                    .sink(
                        receiveCompletion: { completion in if case .failure(let error) = completion { print("error \\(error)") } },
                        receiveValue: { value in if let value = value { print("success \\(value)") } else { print("empty") } }
                    )
                    .store(in: bag)

                """))
        assertMigrates(
            rxFile(
                "load().subscribe(onSuccess: show, onCompleted: { [weak self] in self?.clear() }).disposed(by: bag)\n"),
            to: untangledFile(
                "load().map { Optional.some($0) }.replaceEmpty(with: nil).sink(receiveCompletion: { _ in }, receiveValue: { value in if let value = value { (show)(value) } else { ({ [weak self] in self?.clear() })() } }).store(in: bag)\n"
            ))
    }

    func testBindings() {
        assertMigrates(
            rxFile(
                """
                let relay = PublishRelay<Int>()
                let subject = PublishSubject<Int>()
                items.map { $0.count }.bind(to: relay).disposed(by: bag)
                relay.bind(to: subject).disposed(by: bag)
                relay.map { "\\($0)" }.bind(to: label.rx.text).disposed(by: bag)
                items.bind(onNext: { print($0) }).disposed(by: bag)

                """),
            to: untangledFile(
                """
                let relay = PassthroughRelay<Int>()
                let subject = PassthroughSubject<Int, Error>()
                items.map { $0.count }.assertNoFailure().subscribe(relay).store(in: bag)
                relay.setFailureType(to: Error.self).subscribe(subject).store(in: bag)
                relay.map { "\\($0)" }.receive(on: MainThreadScheduler.shared).assign(to: \\.text, on: label, ownership: .weak).store(in: bag)
                items.assertNoFailure().sink(receiveValue: { print($0) }).store(in: bag)

                """))
    }

    func testDriveAndEmit() {
        assertMigrates(
            rxFile(
                """
                let title: Driver<String> = model.title
                let taps: Signal<Void> = model.taps
                title.drive(onNext: { label.text = $0 }).disposed(by: bag)
                title.drive(label.rx.text).disposed(by: bag)
                title.map { $0.count }.drive(counts).disposed(by: bag)
                taps.emit(onNext: { router.next() }).disposed(by: bag)
                title.drive(onNext: { print($0) }, onCompleted: { print("end") }).disposed(by: bag)

                """),
            to: untangledFile(
                """
                let title: Driver<String> = model.title
                let taps: Signal<Void> = model.taps
                title.drive { label.text = $0 }.store(in: bag)
                title.assign(to: \\.text, on: label, ownership: .weak).store(in: bag)
                title.map { $0.count }.subscribe(counts).store(in: bag)
                taps.emit { router.next() }.store(in: bag)
                title.sink(receiveCompletion: { completion in if case .finished = completion { print("end") } }, receiveValue: { print($0) }).store(in: bag)

                """))
    }

    func testAnEventClosureIsMarked() {
        assertMigrates(
            rxFile("items.subscribe { event in print(event) }.disposed(by: bag)\n"),
            to: untangledFile(
                """
                // untangle-migrate: subscribe with an Event closure: use sink(receiveCompletion:receiveValue:), or materialize() and switch over .value/.completion
                items.subscribe { event in print(event) }.store(in: bag)

                """),
            spots: [
                "subscribe with an Event closure: use sink(receiveCompletion:receiveValue:), or materialize() and "
                    + "switch over .value/.completion"
            ])
    }

    func testARelayDeclaredInAnotherFileIsKnown() {
        assertMigrates(
            rxFile("viewModel.names.subscribe(onNext: { print($0) }).disposed(by: bag)\n"),
            to: untangledFile("viewModel.names.sink(receiveValue: { print($0) }).store(in: bag)\n"),
            otherFiles: [
                "import RxRelay\n\nfinal class ViewModel {\n    let names = BehaviorRelay<[String]>(value: [])\n}\n"
            ])
    }

    func testABindingReturnedFromASingleExpressionBodyIsKept() {
        assertMigrates(
            rxFile(
                """
                let intents = PublishRelay<Int>()
                func process(_ input: Observable<Int>) -> Disposable { input.bind(to: intents) }

                """),
            to: untangledFile(
                """
                let intents = PassthroughRelay<Int>()
                func process(_ input: AnyPublisher<Int, Error>) -> AnyCancellable { input.assertNoFailure().subscribe(intents) }

                """))
    }

    func testAnAppsOwnBindMethodIsLeftAlone() {
        let source = rxFile("func configure() {\n    cell.bind(to: viewModel)\n    super.bind(to: viewModel)\n}\n")
        assertMigrates(source, to: untangledFile(String(source.dropFirst("import RxSwift\n\n".count))))
    }

    func testLetUnderscoreDropsTheSubscriptionToo() {
        assertMigrates(
            rxFile("let _ = ticks.subscribe(onNext: { print($0) })\n"),
            to: untangledFile(
                "let _ = ticks.subscribe(Subscribers.Sink(receiveCompletion: { _ in }, receiveValue: { print($0) }))\n")
        )
    }

    func testDrivingAnItemsBinderWithACellClosureIsMarked() {
        assertMigrates(
            rxFile(
                "items.drive(table.rx.items(cellIdentifier: \"c\")) { _, item, cell in cell.show(item) }.disposed(by: bag)\n"
            ),
            to: untangledFile(
                """
                // untangle-migrate: drive into a binder with a cell closure (RxCocoa's items): feed the table's data source from a sink
                items.drive(table.rx.items(cellIdentifier: "c")) { _, item, cell in cell.show(item) }.store(in: bag)

                """),
            spots: [
                "drive into a binder with a cell closure (RxCocoa's items): feed the table's data source from a sink"
            ])
    }
}
