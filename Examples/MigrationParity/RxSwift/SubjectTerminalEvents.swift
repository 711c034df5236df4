// Subjects after their end: a subscriber that comes after a PublishSubject completed, a BehaviorSubject failed or a
// ReplaySubject ended gets the terminal event at once (the ReplaySubject replays its buffer first, the
// BehaviorSubject sends no value); values sent after the end reach nobody.
import Foundation
import RxSwift

struct Failed: Error {}

let bag = DisposeBag()

func watch(_ name: String, _ source: Observable<Int>) {
    source
        .subscribe(
            onNext: { print("\(name): next \($0)") },
            onError: { print("\(name): error \($0)") },
            onCompleted: { print("\(name): completed") }
        )
        .disposed(by: bag)
}

let publish = PublishSubject<Int>()
watch("publish early", publish.asObservable())
publish.onNext(1)
publish.onCompleted()
publish.onNext(2)
watch("publish late", publish.asObservable())

let behavior = BehaviorSubject<Int>(value: 0)
watch("behavior early", behavior.asObservable())
behavior.onNext(1)
behavior.onError(Failed())
behavior.onNext(2)
watch("behavior late", behavior.asObservable())

let replay = ReplaySubject<Int>.create(bufferSize: 2)
replay.onNext(1)
replay.onNext(2)
replay.onNext(3)
replay.onCompleted()
replay.onNext(4)
watch("replay late", replay.asObservable())

let failedReplay = ReplaySubject<Int>.create(bufferSize: 1)
failedReplay.onNext(5)
failedReplay.onError(Failed())
watch("failed replay late", failedReplay.asObservable())
print("done")
