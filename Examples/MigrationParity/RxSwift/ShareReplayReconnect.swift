// share(replay: 1) (scope .whileConnected): subscribers share one connection; a late one gets the latest value; when
// the last one leaves, the source is disconnected and the buffer cleared; the next subscriber connects again.
import Foundation
import RxSwift

var connections = 0

let source = Observable<Int>.create { observer in
    connections += 1
    let connection = connections
    print("connect \(connection)")
    observer.onNext(connection * 10)
    observer.onNext(connection * 10 + 1)
    return Disposables.create {
        print("disconnect \(connection)")
    }
}

let shared = source.share(replay: 1)

let first = shared.subscribe(onNext: { print("first got \($0)") })
let second = shared.subscribe(onNext: { print("second got \($0)") })
first.dispose()
print("first left")
second.dispose()
print("second left")
let third = shared.subscribe(onNext: { print("third got \($0)") })
third.dispose()
print("done")
