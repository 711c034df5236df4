// Observable.create runs once per subscriber, and the Disposable it returns runs when the subscription ends: after
// completion, after an error, and on dispose. subscribe(onDisposed:) runs then too.
import Foundation
import RxSwift

struct Broken: Error {}

func numbers(_ name: String, end: String) -> Observable<Int> {
    return Observable.create { observer in
        print("\(name): producer starts")
        observer.onNext(1)
        if end == "complete" {
            observer.onCompleted()
        } else if end == "fail" {
            observer.onError(Broken())
        }
        return Disposables.create {
            print("\(name): producer disposed")
        }
    }
}

let completing = numbers("completing", end: "complete")
let subscription = completing.subscribe(
    onNext: { print("completing: next \($0)") },
    onError: { print("completing: error \($0)") },
    onCompleted: { print("completing: completed") },
    onDisposed: { print("completing: onDisposed") })
print("subscribed twice:")
let again = completing.subscribe(onNext: { print("completing again: next \($0)") })

let failing = numbers("failing", end: "fail").subscribe(
    onNext: { print("failing: next \($0)") },
    onError: { print("failing: error \($0)") },
    onDisposed: { print("failing: onDisposed") })

let running = numbers("running", end: "none").subscribe(
    onNext: { print("running: next \($0)") },
    onDisposed: { print("running: onDisposed") })
print("disposing running")
running.dispose()
print("done")
