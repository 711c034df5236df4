// The creation family: just/of/from/empty/never/error/deferred/range/create/interval/timer and the combiners, with
// failures made to agree and the values erased into declared Observable places.

import UntangleLint
import XCTest

final class CreationRulesTests: XCTestCase {
    func testCreatingObservables() {
        assertMigrates(
            rxFile(
                """
                let one = Observable.just(1)
                let few = Observable.of(1, 2, 3)
                let many = Observable.from(numbers)
                let maybe = Observable.from(optional: value)
                let none = Observable<Int>.empty()
                let never = Observable<Int>.never()
                let failed = Observable<Int>.error(MyError.failed)
                let later = Observable.deferred { api.load() }
                let range = Observable.range(start: 1, count: n)

                """),
            to: untangledFile(
                """
                let one = Just(1)
                let few = [1, 2, 3].publisher
                let many = numbers.publisher
                let maybe = value.publisher
                let none = Empty<Int, Error>()
                let never = Empty<Int, Error>(completeImmediately: false)
                let failed = Fail<Int, Error>(error: MyError.failed)
                let later = Deferred { api.load() }
                let range = (1..<1 + n).publisher

                """))
    }

    func testCreateRunsPerSubscriberWithItsDisposeHook() {
        assertMigrates(
            rxFile(
                """
                func load() -> Observable<Data> {
                    return Observable.create { observer in
                        let task = session.start { data in
                            observer.onNext(data)
                            observer.onCompleted()
                        }
                        return Disposables.create { task.cancel() }
                    }
                }

                """),
            to: untangledFile(
                """
                func load() -> AnyPublisher<Data, Error> {
                    return AnyPublisher.create { observer in
                        let task = session.start { data in
                            observer.send(data)
                            observer.send(completion: .finished)
                        }
                        return AnyCancellable { task.cancel() }
                    }
                }

                """))
    }

    // Regression (issue 30): `Observable<Int>.interval` replaced by `Timer.publish` without `autoconnect()` never
    // fires; the counterpart counts from 0 on each subscription.
    func testIntervalAndTimerStartOnSubscription() {
        assertMigrates(
            rxFile(
                """
                let ticks = Observable<Int>.interval(.seconds(1), scheduler: MainScheduler.instance)
                let once = Observable<Int>.timer(.milliseconds(300), scheduler: MainScheduler.instance)
                let polls = Observable<Int>.timer(.seconds(0), period: .seconds(30), scheduler: scheduler)

                """),
            to: untangledFile(
                """
                let ticks = Publishers.Interval(.seconds(1), scheduler: MainThreadScheduler.shared)
                let once = Just(0).delay(for: .milliseconds(300), scheduler: MainThreadScheduler.shared)
                let polls = Publishers.Interval(.seconds(30), delay: .seconds(0), scheduler: scheduler)

                """))
    }

    func testCombinersMakeTheirFailuresAgree() {
        assertMigrates(
            rxFile(
                """
                let relay = BehaviorRelay(value: 0)
                func pairs() -> Observable<(Int, String)> {
                    return Observable.combineLatest(relay, names) { n, s in (n, s) }
                }
                let sums = Observable.zip(a, b).map { $0 + $1 }
                let merged = Observable.merge(a, b, Observable.just(3))
                let all = Observable.merge(sources)
                let chained = Observable.concat(a, b)

                """),
            to: untangledFile(
                """
                let relay = CurrentValueRelay(0)
                func pairs() -> AnyPublisher<(Int, String), Error> {
                    return Publishers.CombineLatest(relay.setFailureType(to: Error.self), names).map { n, s in (n, s) }.eraseToAnyPublisher()
                }
                let sums = a.zip(b, finishing: .whenEveryPublisherFinishes).map { $0 + $1 }
                let merged = Publishers.Merge3(a, b, Just(3).setFailureType(to: Error.self))
                let all = Publishers.MergeMany(sources)
                let chained = a.append(b)

                """))
    }

    func testImplicitMembersFollowTheirContext() {
        assertMigrates(
            rxFile(
                """
                func empty() -> Observable<Int> { .empty() }
                func one() -> Observable<Int> { .just(1) }
                let safe = api.load().catch { _ in .just([]) }
                let title = api.title().asDriver(onErrorDriveWith: .empty())
                observer.on(.error(MyError.failed))

                """),
            to: untangledFile(
                """
                func empty() -> AnyPublisher<Int, Error> { Empty().eraseToAnyPublisher() }
                func one() -> AnyPublisher<Int, Error> { Just(1).setFailureType(to: Error.self).eraseToAnyPublisher() }
                let safe = api.load().catch { _ in Just([]) }
                let title = api.title().asDriver(onErrorDriveWith: .empty())
                observer.send(completion: .failure(MyError.failed))

                """))
    }

    func testDriverCombiners() {
        assertMigrates(
            rxFile("let both = Driver.combineLatest(a, b) { $0 + $1 }\n"),
            to: untangledFile("let both = Publishers.CombineLatest(a, b).map { $0 + $1 }.asDriver()\n"))
    }

    func testADeferredFailsAsWhatItsClosureReturns() {
        // `Observable.deferred { ...; return Observable.from(xs) }` becomes a Deferred that cannot fail: returned
        // as an Observable, it needs setFailureType (parity program Combining).
        assertMigrates(
            rxFile(
                """
                func source(_ values: [Int]) -> Observable<Int> {
                    return Observable.deferred {
                        print("subscribed")
                        return Observable.from(values)
                    }
                }

                """),
            to: untangledFile(
                """
                func source(_ values: [Int]) -> AnyPublisher<Int, Error> {
                    return Deferred {
                        print("subscribed")
                        return values.publisher
                    }.setFailureType(to: Error.self).eraseToAnyPublisher()
                }

                """))
    }

    func testCombinersOfAnArrayOfSources() {
        // RxSwift's array forms (parity program Combining): combineLatest and zip publish arrays (UntangleExtras'
        // collection operators), a selector gets the array; merge is MergeMany; concat runs one source at a time.
        assertMigrates(
            rxFile(
                """
                let all = Observable.combineLatest(requests)
                let sum = Observable.combineLatest(requests) { $0.reduce(0, +) }
                let pages = Observable.zip([first, second], resultSelector: join)
                let merged = Observable.merge([first, second])
                let ordered = Observable.concat(requests)

                """),
            to: untangledFile(
                """
                let all = requests.combineLatest()
                let sum = requests.combineLatest().map { $0.reduce(0, +) }
                let pages = [first, second].zip(finishing: .whenEveryPublisherFinishes).map(join)
                let merged = Publishers.MergeMany([first, second])
                let ordered = requests.publisher.flatMap(maxPublishers: .max(1)) { $0 }

                """))
    }

    func testZipKeepsRxSwiftsCompletion() {
        // RxSwift's zip finishes once every source completed (parity program ZipCompletion); Combine's as soon as a
        // finished source has nothing left to pair: UntangleExtras' zips with `finishing:`, on Driver too.
        assertMigrates(
            rxFile(
                """
                let pairs = Observable.zip(letters, digits)
                let words = Observable.zip(a, b, c) { "\\($0)\\($1)\\($2)" }
                let rows = Observable.zip(columns)
                let both = Driver.zip(first, second)

                """),
            to: untangledFile(
                """
                let pairs = letters.zip(digits, finishing: .whenEveryPublisherFinishes)
                let words = a.zip(b, c, finishing: .whenEveryPublisherFinishes).map { "\\($0)\\($1)\\($2)" }
                let rows = columns.zip(finishing: .whenEveryPublisherFinishes)
                let both = first.zip(second, finishing: .whenEveryPublisherFinishes).asDriver()

                """))
    }
}
