// retry(n) counts the first attempt: retry(3) subscribes three times in all.
import Foundation
import RxSwift

struct Offline: Error {}

var attempts = 0

let flaky = Observable<String>.create { observer in
    attempts += 1
    print("attempt \(attempts)")
    observer.onError(Offline())
    return Disposables.create()
}

_ = flaky.retry(3).subscribe(
    onNext: { print($0) },
    onError: { _ in print("gave up after \(attempts) attempts") })

attempts = 0
let times = 2
_ = flaky.retry(times).subscribe(onError: { error in print("gave up after \(attempts) attempts: \(error)") })

let succeeding = Observable<String>.create { observer in
    attempts += 1
    if attempts < 3 {
        observer.onError(Offline())
    } else {
        observer.onNext("answer on attempt \(attempts)")
        observer.onCompleted()
    }
    return Disposables.create()
}
attempts = 0
_ = succeeding.retry(3).subscribe(onNext: { print($0) }, onCompleted: { print("completed") })
