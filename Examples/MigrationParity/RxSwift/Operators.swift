// Operators whose names or counts differ: startWith, distinctUntilChanged, withLatestFrom (not combineLatest),
// flatMapLatest, catchAndReturn, do(onNext:onCompleted:), take/skip, scan with an accumulator label.
import Foundation
import RxSwift

struct Failed: Error {}

let bag = DisposeBag()

Observable.of(1, 1, 2, 2, 3, 1)
    .distinctUntilChanged()
    .startWith(0)
    .skip(1)
    .take(3)
    .scan(0, accumulator: +)
    .subscribe(onNext: { print("running total: \($0)") })
    .disposed(by: bag)

let taps = PublishSubject<Void>()
let text = PublishSubject<String>()
taps.withLatestFrom(text)
    .subscribe(onNext: { print("submitted: \($0)") })
    .disposed(by: bag)
taps.onNext(())
text.onNext("h")
text.onNext("hi")
taps.onNext(())
text.onNext("hi!")

let queries = PublishSubject<String>()
let responses = [String: PublishSubject<String>](uniqueKeysWithValues: ["a", "b"].map { ($0, PublishSubject<String>()) })
queries
    .flatMapLatest { query in responses[query]! }
    .subscribe(onNext: { print("result: \($0)") })
    .disposed(by: bag)
queries.onNext("a")
responses["a"]!.onNext("a1")
queries.onNext("b")
responses["a"]!.onNext("a2 (ignored: a newer query)")
responses["b"]!.onNext("b1")

Observable<Int>.error(Failed())
    .catchAndReturn(-1)
    .do(onNext: { print("about to deliver \($0)") }, onCompleted: { print("about to complete") })
    .subscribe(onNext: { print("value: \($0)") }, onCompleted: { print("completed") })
    .disposed(by: bag)
