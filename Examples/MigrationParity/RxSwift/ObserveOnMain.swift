// observe(on: MainScheduler.instance): a value sent on the main thread is delivered in line; one produced on a
// background scheduler is delivered on the main thread, after the code that subscribed has finished.
import Foundation
import RxSwift

let bag = DisposeBag()
let background = SerialDispatchQueueScheduler(qos: .userInitiated)
let subject = PublishSubject<Int>()

DispatchQueue.main.async {
    subject
        .observe(on: MainScheduler.instance)
        .subscribe(onNext: { value in
            print("received \(value) on the main thread: \(Thread.isMainThread)")
        })
        .disposed(by: bag)
    subject.onNext(1)
    print("after onNext(1)")

    Observable.just(2)
        .subscribe(on: background)
        .observe(on: MainScheduler.instance)
        .subscribe(
            onNext: { value in
                print("received \(value) on the main thread: \(Thread.isMainThread)")
            },
            onCompleted: {
                print("completed")
                exit(0)
            }
        )
        .disposed(by: bag)
    print("after subscribing on the background scheduler")
}

RunLoop.main.run()
