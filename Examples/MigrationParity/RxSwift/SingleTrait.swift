// Single: created per subscriber, one value or an error; subscribe(onSuccess:onFailure:); asSingle().
import Foundation
import RxSwift

struct NotFound: Error {}

func user(_ id: Int) -> Single<String> {
    return Single<String>.create { single in
        print("looking up \(id)")
        if id == 1 {
            single(.success("ada"))
        } else {
            single(.failure(NotFound()))
        }
        return Disposables.create()
    }
}

let bag = DisposeBag()
user(1).subscribe(onSuccess: { print("found \($0)") }, onFailure: { print("failed: \($0)") }).disposed(by: bag)
user(2).subscribe(onSuccess: { print("found \($0)") }, onFailure: { print("failed: \($0)") }).disposed(by: bag)
Observable.just(42).asSingle().subscribe(onSuccess: { print("single value \($0)") }).disposed(by: bag)
print("done")
