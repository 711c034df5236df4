// The subjects family: constructing subjects and relays, reading a BehaviorSubject, and the observer calls.

import UntangleLint
import XCTest

final class SubjectRulesTests: XCTestCase {
    func testConstructors() {
        assertMigrates(
            rxFile(
                """
                let publish = PublishSubject<Int>()
                let annotated: PublishSubject<Int> = PublishSubject()
                let behavior = BehaviorSubject<Int>(value: 0)
                let inferred = BehaviorSubject(value: "")
                let replay = ReplaySubject<Int>.create(bufferSize: 2)
                let all = ReplaySubject<Int>.createUnbounded()
                let relay = PublishRelay<Int>()
                let current = BehaviorRelay(value: [1])
                let typed = BehaviorRelay<[Int]>(value: [])

                """),
            to: untangledFile(
                """
                let publish = PassthroughSubject<Int, Error>()
                let annotated: PassthroughSubject<Int, Error> = PassthroughSubject()
                let behavior = CurrentValueSubject<Int, Error>(0)
                let inferred = CurrentValueSubject<_, Error>("")
                let replay = ReplaySubject<Int, Error>(bufferSize: 2)
                let all = ReplaySubject<Int, Error>.unbounded()
                let relay = PassthroughRelay<Int>()
                let current = CurrentValueRelay([1])
                let typed = CurrentValueRelay<[Int]>([])

                """))
    }

    func testObserverCallsBecomeSend() {
        assertMigrates(
            rxFile(
                """
                subject.onNext(1)
                subject.onError(MyError.failed)
                subject.onCompleted()
                observer.on(.next(2))
                observer.on(.error(error))
                observer.on(.completed)
                relay.accept(3)

                """),
            to: untangledFile(
                """
                subject.send(1)
                subject.send(completion: .failure(MyError.failed))
                subject.send(completion: .finished)
                observer.send(2)
                observer.send(completion: .failure(error))
                observer.send(completion: .finished)
                relay.accept(3)

                """))
    }

    func testBehaviorSubjectValueNoLongerThrows() {
        assertMigrates(
            rxFile(
                """
                let counter = BehaviorSubject<Int>(value: 1)
                let now = try counter.value()
                let maybe = try? counter.value()
                let relayValue = BehaviorRelay(value: 1).value

                """),
            to: untangledFile(
                """
                let counter = CurrentValueSubject<Int, Error>(1)
                let now = counter.value
                let maybe = Optional(counter.value)
                let relayValue = CurrentValueRelay(1).value

                """))
    }

    func testSubjectsWithoutCounterpartAreMarked() {
        assertMigrates(
            rxFile("let last = AsyncSubject<Int>()\n"),
            to: untangledFile(
                """
                // untangle-migrate: AsyncSubject has no counterpart: a Future, or a subject followed by last()
                let last = AsyncSubject<Int>()

                """),
            spots: ["AsyncSubject has no counterpart: a Future, or a subject followed by last()"])
    }

    func testTypeArgumentsNamingRxSwiftTypesAreRewrittenToo() {
        assertMigrates(
            rxFile("let sources = PublishSubject<Observable<Int>>()\nlet none = Observable<Observable<Int>>.empty()\n"),
            to: untangledFile(
                "let sources = PassthroughSubject<AnyPublisher<Int, Error>, Error>()\n"
                    + "let none = Empty<AnyPublisher<Int, Error>, Error>()\n"))
    }
}
