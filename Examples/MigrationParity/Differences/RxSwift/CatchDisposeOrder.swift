// catch { } after an Observable.create that fails synchronously: RxSwift subscribes the fallback inside onError, so
// the fallback's values and completion come before the create's Disposable runs (after the create closure returned).
import Foundation
import RxSwift

struct Failed: Error {}

let bag = DisposeBag()

let flaky = Observable<Int>.create { observer in
    observer.onNext(1)
    observer.onError(Failed())
    print("create closure returns")
    return Disposables.create { print("flaky disposed") }
}

flaky
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
print("done")
