// A subscription whose Disposable is dropped keeps running until the source ends (only an explicit dispose, or a
// bag, ends it earlier).
import Foundation
import RxSwift

let subject = PublishSubject<Int>()
_ = subject.subscribe(onNext: { print("still listening: \($0)") }, onCompleted: { print("ended with the source") })

func listen() {
    _ = subject.subscribe(onNext: { print("listener from a function: \($0)") })
}
listen()

subject.onNext(1)
subject.onNext(2)
subject.onCompleted()
print("done")
