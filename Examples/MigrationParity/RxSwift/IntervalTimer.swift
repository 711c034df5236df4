// Observable<Int>.interval counts from 0 on each subscription; timer emits 0 once after a delay.
import Foundation
import RxSwift

let bag = DisposeBag()

DispatchQueue.main.async {
    Observable<Int>.timer(.milliseconds(5), scheduler: MainScheduler.instance)
        .subscribe(onNext: { print("timer fired: \($0)") })
        .disposed(by: bag)

    Observable<Int>.interval(.milliseconds(20), scheduler: MainScheduler.instance)
        .take(3)
        .subscribe(
            onNext: { print("tick \($0) on the main thread: \(Thread.isMainThread)") },
            onCompleted: {
                print("ticks completed")
                exit(0)
            }
        )
        .disposed(by: bag)
}

RunLoop.main.run()
