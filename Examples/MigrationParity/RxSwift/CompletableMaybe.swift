// Completable and Maybe: subscribe(onCompleted:onError:) on a Completable that completes and on one that fails; a
// Maybe that succeeds, one that completes empty and one that fails, with subscribe(onSuccess:onError:onCompleted:)
// (onCompleted only for the empty one: a Maybe's success ends it).
import Foundation
import RxSwift

struct Failed: Error {}

let bag = DisposeBag()

func save(_ succeeds: Bool) -> Completable {
    return Completable.create { completable in
        print("saving")
        if succeeds {
            completable(.completed)
        } else {
            completable(.error(Failed()))
        }
        return Disposables.create()
    }
}

save(true)
    .subscribe(onCompleted: { print("saved") }, onError: { print("save failed: \($0)") })
    .disposed(by: bag)
save(false)
    .subscribe(onCompleted: { print("saved") }, onError: { print("save failed: \($0)") })
    .disposed(by: bag)

func cached(_ key: String) -> Maybe<String> {
    return Maybe.create { maybe in
        if key == "hit" {
            maybe(.success("value"))
        } else if key == "miss" {
            maybe(.completed)
        } else {
            maybe(.error(Failed()))
        }
        return Disposables.create()
    }
}

for key in ["hit", "miss", "broken"] {
    cached(key)
        .subscribe(
            onSuccess: { print("\(key): success \($0)") },
            onError: { print("\(key): error \($0)") },
            onCompleted: { print("\(key): completed") }
        )
        .disposed(by: bag)
}
print("done")
