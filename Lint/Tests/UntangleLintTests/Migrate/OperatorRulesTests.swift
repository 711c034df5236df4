// The operators family: renames and relabels where Combine's meaning matches, counted operators by meaning
// (retry(n) → retry(n - 1)), throwing maps, do(...) → handleEvents(...), share scopes, and what is marked.

import UntangleLint
import XCTest

final class OperatorRulesTests: XCTestCase {
    func testRenamesAndLabels() {
        assertMigrates(
            rxFile(
                """
                let result = source
                    .distinctUntilChanged()
                    .startWith(0)
                    .skip(1)
                    .take(3)
                    .takeWhile { $0 < 10 }
                    .skip(while: { $0 < 0 })
                    .takeUntil(stop)
                    .debounce(.milliseconds(300), scheduler: MainScheduler.instance)
                    .throttle(.seconds(1), scheduler: scheduler)
                    .delay(.seconds(1), scheduler: scheduler)
                    .scan(0, accumulator: +)
                    .elementAt(2)
                    .toArray()
                    .catchAndReturn([])
                    .debug("result")

                """),
            to: untangledFile(
                """
                let result = source
                    .removeDuplicates()
                    .prepend(0)
                    .dropFirst(1)
                    .prefix(3)
                    .prefix(while: { $0 < 10 })
                    .drop(while: { $0 < 0 })
                    .prefix(untilOutputFrom: stop)
                    .debounce(for: .milliseconds(300), scheduler: MainThreadScheduler.shared, onFinish: .deliverPendingValue)
                    .throttle(for: .seconds(1), scheduler: scheduler, latest: true)
                    .delay(for: .seconds(1), scheduler: scheduler)
                    .scan(0, +)
                    .element(at: 2)
                    .collect()
                    .replaceError(with: [])
                    .print("result")

                """))
    }

    // Regression (issue 30): `retry(3)` kept as `retry(3)` makes four attempts; RxSwift's counts the first.
    func testConnectableOperatorsBecomeMulticastAndAutoconnect() {
        // publish() and replay(n) make their subject when first needed, as RxSwift's multicast(makeSubject:) does;
        // refCount() disconnects when the last subscriber leaves, as autoconnect() does (parity program
        // ConnectableSharing).
        assertMigrates(
            rxFile(
                """
                let subject = PublishSubject<Int>()
                let published = subject.publish()
                let replayed = subject.replay(2)
                let all = subject.replayAll()
                let counted = subject.publish().refCount()

                """),
            to: untangledFile(
                """
                let subject = PassthroughSubject<Int, Error>()
                let published = subject.multicast { PassthroughSubject() }
                let replayed = subject.multicast { ReplaySubject(bufferSize: 2) }
                let all = subject.multicast { ReplaySubject.unbounded() }
                let counted = subject.multicast { PassthroughSubject() }.autoconnect()

                """))
    }

    func testIgnoreElementsAndEnumeratedOnAnRxSwiftChain() {
        // ignoreElements() is Combine's ignoreOutput(); enumerated() is UntangleExtras' (parity program
        // SequenceOperators). An array's enumerated() is not touched.
        assertMigrates(
            rxFile(
                """
                let done = Observable.of(1, 2).ignoreElements()
                let indexed = Observable.of("a", "b").enumerated()
                let pairs = ["a", "b"].enumerated()

                """),
            to: untangledFile(
                """
                let done = [1, 2].publisher.ignoreOutput()
                let indexed = ["a", "b"].publisher.enumerated()
                let pairs = ["a", "b"].enumerated()

                """))
    }

    func testDebounceDeliversTheValueWaitingAtCompletionAsRxSwiftDoes() {
        // RxSwift's debounce delivers the value still waiting when the source completes, then the completion;
        // Combine's drops it: UntangleExtras' overload with onFinish keeps RxSwift's (parity program
        // DebounceCompletion).
        assertMigrates(
            rxFile("let a = t.debounce(.seconds(1), scheduler: s)\n"),
            to: untangledFile("let a = t.debounce(for: .seconds(1), scheduler: s, onFinish: .deliverPendingValue)\n"))
    }

    func testElementAtStaysRxSwiftsElementAtNotCombinesOutputAt() {
        // `(1..<7).publisher.output(at: 2)` is 2 (a Range's index is its value) and finishes quietly when the source
        // ends first: UntangleExtras' element(at:) counts elements and fails with ArgumentOutOfRange, as RxSwift's
        // (parity program SequenceOperators).
        assertMigrates(
            rxFile("let third = Observable.range(start: 1, count: 6).element(at: 2)\n"),
            to: untangledFile("let third = (1..<1 + 6).publisher.element(at: 2)\n"))
    }

    func testRetryWhenWithAHandlerGivenByNameGetsAnErrorStreamThatCanFail() {
        // `func handler(_ errors: Observable<Error>) -> Observable<Int>` takes `AnyPublisher<Error, Error>` once
        // migrated; UntangleExtras' retry(when:) hands a stream that cannot fail (parity program RetryWhen). A closure
        // literal takes what it is given.
        assertMigrates(
            rxFile(
                """
                let a = source.retry(when: handler)
                let b = source.retryWhen(self.handler)
                let c = source.retry(when: { errors in errors.take(2) })

                """),
            to: untangledFile(
                """
                let a = source.retry(when: { handler($0.setFailureType(to: Error.self).eraseToAnyPublisher()) })
                let b = source.retry(when: { self.handler($0.setFailureType(to: Error.self).eraseToAnyPublisher()) })
                let c = source.retry(when: { errors in errors.prefix(2) })

                """))
    }

    func testRetryCountsTheFirstAttempt() {
        assertMigrates(
            rxFile("let a = api.load().retry(3)\nlet b = api.load().retry(times)\nlet c = api.load().retry()\n"),
            to: untangledFile(
                "let a = api.load().retry(2)\nlet b = api.load().retry(times - 1)\nlet c = api.load().retry(.max)\n"))
    }

    func testShareScopes() {
        assertMigrates(
            rxFile(
                """
                let a = source.share()
                let b = source.share(replay: 1)
                let c = source.share(replay: 1, scope: .whileConnected)
                let d = source.share(replay: 1, scope: .forever)

                """),
            to: untangledFile(
                """
                let a = source.share(replay: 0)
                let b = source.share(replay: 1)
                let c = source.share(replay: 1)
                let d = source.multicast(subject: ReplaySubject(bufferSize: 1)).autoconnect()

                """))
    }

    func testAThrowingMapBecomesTryMap() {
        assertMigrates(
            rxFile(
                """
                let data = PublishSubject<Data>()
                let users = data.map { try JSONDecoder().decode(User.self, from: $0) }
                let names = users.map { $0.name }
                let checked = users.filter { try validate($0) }
                let parsed = files.map { try parse($0) }  // an array's map stays

                """),
            to: untangledFile(
                """
                let data = PassthroughSubject<Data, Error>()
                let users = data.tryMap { try JSONDecoder().decode(User.self, from: $0) }
                let names = users.map { $0.name }
                let checked = users.tryFilter { try validate($0) }
                let parsed = files.map { try parse($0) }  // an array's map stays

                """))
    }

    func testDoBecomesHandleEventsAndHandleTermination() {
        assertMigrates(
            rxFile(
                """
                let logged = source
                    .do(onNext: { print($0) }, onError: { print($0) }, onSubscribe: { print("subscribed") })
                    .do(onDispose: { print("disposed") })

                """),
            to: untangledFile(
                """
                let logged = source
                    .handleEvents(receiveSubscription: { _ in print("subscribed") }, receiveOutput: { print($0) }, receiveCompletion: { completion in if case .failure(let error) = completion { print(error) } })
                    .handleTermination { print("disposed") }

                """))
    }

    func testDistinctUntilChangedWithAKeyOrAComparer() {
        assertMigrates(
            rxFile(
                """
                let a = users.distinctUntilChanged { $0.id }
                let b = users.distinctUntilChanged { $0.id == $1.id }
                let c = users.distinctUntilChanged(\\.id)

                """),
            to: untangledFile(
                """
                let a = users.removeDuplicates(by: { $0.id == $1.id })
                let b = users.removeDuplicates(by: { $0.id == $1.id })
                let c = users.removeDuplicates(by: { $0[keyPath: \\.id] == $1[keyPath: \\.id] })

                """))
    }

    func testTimeoutWithAFallbackUsesUntangleExtrasTimeout() {
        assertMigrates(
            rxFile("let t = quotes.timeout(.seconds(5), other: cached, scheduler: scheduler)\n"),
            to: untangledFile("let t = quotes.timeout(.seconds(5), scheduler: scheduler, fallback: cached)\n"))
    }

    func testOperatorsWithoutCounterpartAreMarked() {
        assertMigrates(
            rxFile("let t = source.timeout(.seconds(5), scheduler: scheduler)\n"),
            to: untangledFile(
                """
                // untangle-migrate: timeout: RxSwift fails with RxError.timeout, Combine's timeout finishes silently: pass customError:
                let t = source.timeout(.seconds(5), scheduler: scheduler)

                """),
            spots: [
                "timeout: RxSwift fails with RxError.timeout, Combine's timeout finishes silently: pass customError:"
            ])
    }

    func testExtrasOperatorsKeepTheirNames() {
        let source = rxFile(
            """
            let a = taps.withLatestFrom(text).flatMapLatest { api.search($0) }.flatMapFirst { save($0) }
            let b = events.materialize().amb(other).sample(ticks)

            """)
        let result = assertMigrates(
            source, to: untangledFile(String(source.dropFirst("import RxSwift\n\n".count))))
        XCTAssertEqual(result.rewrites.map(\.rule), ["imports"])
    }
}
