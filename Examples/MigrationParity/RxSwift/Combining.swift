// Combining sources: concat subscribes to the second source only after the first completed; concatMap runs the inner
// observables one after another; merge interleaves two subjects; merge of an array subscribes to its (cold) sources in
// order; merge(maxConcurrent: 1) waits for each inner observable; zip and combineLatest with a result selector; the
// array forms of concat, combineLatest (with a selector taking the array) and zip.
import Foundation
import RxSwift

let bag = DisposeBag()

func source(_ name: String, _ values: [Int]) -> Observable<Int> {
    return Observable.deferred {
        print("subscribe \(name)")
        return Observable.from(values)
    }
}

Observable.concat(source("a", [1, 2]), source("b", [3]))
    .subscribe(onNext: { print("concat: \($0)") }, onCompleted: { print("concat completed") })
    .disposed(by: bag)

Observable.of(1, 2)
    .concatMap { value in source("inner \(value)", [value * 10, value * 10 + 1]) }
    .subscribe(onNext: { print("concatMap: \($0)") }, onCompleted: { print("concatMap completed") })
    .disposed(by: bag)

let left = PublishSubject<String>()
let right = PublishSubject<String>()
Observable.merge(left, right)
    .subscribe(onNext: { print("merge: \($0)") }, onCompleted: { print("merge completed") })
    .disposed(by: bag)
left.onNext("l1")
right.onNext("r1")
left.onCompleted()
right.onNext("r2")
right.onCompleted()

Observable.merge([source("x", [1]), source("y", [2])])
    .subscribe(onNext: { print("merge array: \($0)") }, onCompleted: { print("merge array completed") })
    .disposed(by: bag)

Observable.of(source("m1", [1, 2]), source("m2", [3]))
    .merge(maxConcurrent: 1)
    .subscribe(onNext: { print("merge(maxConcurrent: 1): \($0)") })
    .disposed(by: bag)

let letters = PublishSubject<String>()
let digits = PublishSubject<Int>()
Observable.zip(letters, digits) { letter, digit in "\(letter)\(digit)" }
    .subscribe(onNext: { print("zip: \($0)") }, onCompleted: { print("zip completed") })
    .disposed(by: bag)
letters.onNext("a")
letters.onNext("b")
digits.onNext(1)
digits.onNext(2)
letters.onCompleted()
digits.onCompleted()

let width = PublishSubject<Int>()
let height = PublishSubject<Int>()
Observable.combineLatest(width, height) { "\($0)x\($1)" }
    .subscribe(onNext: { print("combineLatest: \($0)") })
    .disposed(by: bag)
width.onNext(1)
height.onNext(2)
width.onNext(3)
height.onNext(4)
Observable.concat([source("c1", [1]), source("c2", [2])])
    .subscribe(onNext: { print("concat array: \($0)") }, onCompleted: { print("concat array completed") })
    .disposed(by: bag)

let first = PublishSubject<Int>()
let second = PublishSubject<Int>()
let third = PublishSubject<Int>()
Observable.combineLatest([first, second, third]) { $0.map(String.init).joined(separator: "+") }
    .subscribe(onNext: { print("combineLatest array: \($0)") })
    .disposed(by: bag)
first.onNext(1)
second.onNext(2)
third.onNext(3)
second.onNext(4)

Observable.zip([source("z1", [1, 2]), source("z2", [10, 20])])
    .subscribe(onNext: { print("zip array: \($0)") }, onCompleted: { print("zip array completed") })
    .disposed(by: bag)
print("done")
