// throttle (latest: true by default in RxSwift, unlike Combine's) delivers the first value of a window at once and
// the latest value of the window when it ends; a completion that arrives while a value waits follows that value.
import Foundation
import RxSwift

let bag = DisposeBag()

DispatchQueue.main.async {
    let taps = PublishSubject<Int>()
    taps
        .throttle(.milliseconds(500), scheduler: MainScheduler.instance)
        .subscribe(
            onNext: { print("throttle: \($0)") },
            onCompleted: {
                print("throttle completed")
                exit(0)
            }
        )
        .disposed(by: bag)
    taps.onNext(1)
    print("tapped 1")
    taps.onNext(2)
    taps.onNext(3)
    taps.onCompleted()
    print("taps ended")
}

RunLoop.main.run()
