// Filtering and aggregating: take(while:), skip(while:), takeLast, element(at:) (also past the end), toArray
// (a Single), reduce, ignoreElements, compactMap, enumerated, take(until:), distinctUntilChanged with a key path,
// range, empty, and a never-ending observable disposed by hand.
import Foundation
import RxSwift

struct Point {
    let x: Int
    let y: Int
}

let bag = DisposeBag()
let numbers = Observable.range(start: 1, count: 6)

numbers.take(while: { $0 < 3 })
    .subscribe(onNext: { print("take(while:): \($0)") }, onCompleted: { print("take(while:) completed") })
    .disposed(by: bag)
numbers.skip(while: { $0 < 5 })
    .subscribe(onNext: { print("skip(while:): \($0)") })
    .disposed(by: bag)
numbers.takeLast(2)
    .subscribe(onNext: { print("takeLast(2): \($0)") })
    .disposed(by: bag)
numbers.element(at: 2)
    .subscribe(onNext: { print("element(at: 2): \($0)") })
    .disposed(by: bag)
numbers.element(at: 10)
    .subscribe(onNext: { print("element(at: 10): \($0)") }, onError: { _ in print("element(at: 10) failed") })
    .disposed(by: bag)
numbers.toArray()
    .subscribe(onSuccess: { print("toArray: \($0)") })
    .disposed(by: bag)
numbers.reduce(0, accumulator: +)
    .subscribe(onNext: { print("reduce: \($0)") })
    .disposed(by: bag)
numbers.ignoreElements()
    .subscribe(onCompleted: { print("ignoreElements completed") })
    .disposed(by: bag)

Observable.of("1", "x", "3")
    .compactMap { Int($0) }
    .subscribe(onNext: { print("compactMap: \($0)") })
    .disposed(by: bag)

Observable.of("a", "b")
    .enumerated()
    .subscribe(onNext: { index, letter in print("enumerated: \(index) \(letter)") })
    .disposed(by: bag)

let stop = PublishSubject<Void>()
let ticks = PublishSubject<Int>()
ticks.take(until: stop)
    .subscribe(onNext: { print("take(until:): \($0)") }, onCompleted: { print("take(until:) completed") })
    .disposed(by: bag)
ticks.onNext(1)
stop.onNext(())
ticks.onNext(2)

Observable.of(Point(x: 1, y: 1), Point(x: 1, y: 2), Point(x: 2, y: 2))
    .distinctUntilChanged(\.x)
    .subscribe(onNext: { print("distinct by x: (\($0.x), \($0.y))") })
    .disposed(by: bag)

Observable<Int>.empty()
    .subscribe(onNext: { print("empty: next \($0)") }, onCompleted: { print("empty completed") })
    .disposed(by: bag)

let endless = Observable<Int>.never()
    .subscribe(onCompleted: { print("never completed") }, onDisposed: { print("never disposed") })
endless.dispose()
print("done")
