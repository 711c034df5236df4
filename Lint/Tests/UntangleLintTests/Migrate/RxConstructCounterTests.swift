// The construct counter behind the corpus numbers: RxSwift-only constructs by category, and none of Untangle's
// spellings (a migrated file counts zero).

import SwiftParser
import UntangleLint
import XCTest

final class RxConstructCounterTests: XCTestCase {
    func testCountsRxSwiftOnlyConstructsByCategory() {
        let source = """
            let bag = DisposeBag()
            let relay = PublishRelay<Int>()
            let items: Observable<[Int]> = api.items().asObservable()
            func f(_ d: Disposable, _ s: Single<Int>, _ c: Completable) {}
            items.observe(on: MainScheduler.instance).subscribe(onNext: { print($0) }).disposed(by: bag)
            items.bind(to: relay).disposed(by: bag)
            subject.onNext(1)
            let r = ReplaySubject<Int>.create(bufferSize: 1)
            let d = items.distinctUntilChanged()
            """
        XCTAssertEqual(
            RxConstructCounter.count(Parser.parse(source: source)),
            [
                "bags": 1, "subjects": 2, "types": 4, "asObservable": 1, "schedulers": 2, "subscribe": 1,
                "disposed": 2, "bind": 1, "observerCalls": 1, "operators": 1,
            ])
    }

    func testUntanglesSpellingsCountNothing() {
        let source = """
            let bag = CancelBag()
            let relay = PassthroughRelay<Int>()
            let items: AnyPublisher<[Int], Error> = api.items().eraseToAnyPublisher()
            func f(_ d: AnyCancellable, _ s: Single<Int, Error>, _ c: Completable<Error>) {}
            items.receive(on: MainThreadScheduler.shared).sink(receiveValue: { print($0) }).store(in: bag)
            driver.drive { print($0) }.store(in: bag)
            subject.send(1)
            let r = ReplaySubject<Int, Error>(bufferSize: 1)
            let t = Single<Int, Error>.create { _ in AnyCancellable {} }
            """
        XCTAssertEqual(RxConstructCounter.count(Parser.parse(source: source)), [:])
    }
}
