// Recovering from errors: catch { } switches to another observable (the values before the error stay delivered),
// do(onError:) sees the error before catch does, and a fallback that fails itself reaches onError. (When the
// create's Disposable runs relative to the fallback's values: Differences/RxSwift/CatchDisposeOrder.swift.)
import Foundation
import RxSwift

struct Failed: Error {}
struct FallbackFailed: Error {}

let bag = DisposeBag()

let flaky = Observable<Int>.create { observer in
    observer.onNext(1)
    observer.onNext(2)
    observer.onError(Failed())
    return Disposables.create()
}

flaky
    .do(onError: { print("do(onError:) saw \($0)") })
    .catch { error in
        print("catch got \(error)")
        return Observable.just(-1)
    }
    .subscribe(
        onNext: { print("recovered: next \($0)") },
        onError: { print("recovered: error \($0)") },
        onCompleted: { print("recovered: completed") }
    )
    .disposed(by: bag)

Observable<Int>.error(Failed())
    .catch { _ in Observable<Int>.error(FallbackFailed()) }
    .subscribe(
        onNext: { print("fallback: next \($0)") },
        onError: { print("fallback: error \($0)") },
        onCompleted: { print("fallback: completed") }
    )
    .disposed(by: bag)
print("done")
