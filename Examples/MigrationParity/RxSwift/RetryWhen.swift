// retry(when:) with a handler that counts the errors (enumerated) and gives up on the third one: each error reaches
// the handler before the next attempt subscribes; the handler's error ends the sequence; a source that succeeds on
// its third attempt completes normally.
import Foundation
import RxSwift

struct Offline: Error {}

let bag = DisposeBag()
var attempts = 0
var failures = 2

let flaky = Observable<String>.create { observer in
    attempts += 1
    print("attempt \(attempts)")
    if attempts <= failures {
        observer.onError(Offline())
    } else {
        observer.onNext("answer on attempt \(attempts)")
        observer.onCompleted()
    }
    return Disposables.create()
}

func retryingTwice(_ errors: Observable<Error>) -> Observable<Int> {
    return errors.enumerated().flatMap { attempt, error -> Observable<Int> in
        if attempt >= 2 {
            print("giving up after \(error)")
            return Observable.error(error)
        }
        print("retry \(attempt + 1) after \(error)")
        return Observable.just(attempt)
    }
}

flaky
    .retry(when: retryingTwice)
    .subscribe(
        onNext: { print("value: \($0)") },
        onError: { print("error: \($0)") },
        onCompleted: { print("completed") }
    )
    .disposed(by: bag)

attempts = 0
failures = 5
flaky
    .retry(when: retryingTwice)
    .subscribe(
        onNext: { print("value: \($0)") },
        onError: { print("error: \($0)") },
        onCompleted: { print("completed") }
    )
    .disposed(by: bag)
print("done")
