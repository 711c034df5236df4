// zip completes when every source has completed: a source that completed with no value left does not end the zip
// while another source still runs (values of the running source wait for a partner that never comes).
import Foundation
import RxSwift

let bag = DisposeBag()

let letters = PublishSubject<String>()
let digits = PublishSubject<Int>()
Observable.zip(letters, digits)
    .subscribe(onNext: { print("zip: \($0.0)\($0.1)") }, onCompleted: { print("zip completed") })
    .disposed(by: bag)
letters.onNext("a")
letters.onCompleted()
print("letters completed")
digits.onNext(1)
print("sent 1")
digits.onNext(2)
print("sent 2")
digits.onCompleted()
print("done")
