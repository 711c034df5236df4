// subscribe(on:) and observe(on:) with dispatch-queue schedulers: the source is subscribed on the concurrent
// scheduler's queue and its events arrive on the serial scheduler's queue, never on the main thread; the main
// thread waits for the completion with a semaphore.
import Foundation
import RxSwift

let bag = DisposeBag()
let finished = DispatchSemaphore(value: 0)
let background = ConcurrentDispatchQueueScheduler(qos: .userInitiated)
let serial = SerialDispatchQueueScheduler(internalSerialQueueName: "parity.serial")

Observable<Int>.create { observer in
    print("subscribed on the main thread: \(Thread.isMainThread)")
    observer.onNext(1)
    observer.onNext(2)
    observer.onCompleted()
    return Disposables.create()
}
.subscribe(on: background)
.observe(on: serial)
.subscribe(
    onNext: { print("value \($0) on the main thread: \(Thread.isMainThread)") },
    onCompleted: {
        print("completed on the main thread: \(Thread.isMainThread)")
        finished.signal()
    }
)
.disposed(by: bag)
finished.wait()
print("done")
