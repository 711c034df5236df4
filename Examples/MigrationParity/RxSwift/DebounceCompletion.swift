// debounce when the source completes while a value waits: RxSwift's debounce delivers the waiting value at once,
// then the completion (Combine's debounce drops the waiting value and delivers only the completion).
import Foundation
import RxSwift

let bag = DisposeBag()

DispatchQueue.main.async {
    let typing = PublishSubject<String>()
    typing
        .debounce(.milliseconds(500), scheduler: MainScheduler.instance)
        .subscribe(onNext: { print("debounce: \($0)") }, onCompleted: { print("debounce completed") })
        .disposed(by: bag)
    typing.onNext("s")
    typing.onNext("sw")
    typing.onNext("swift")
    typing.onCompleted()
    print("typing ended")
    exit(0)
}

RunLoop.main.run()
