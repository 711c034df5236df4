// Binding: bind(onNext:), bind(to:) a PublishRelay and a BehaviorRelay, asDriver(onErrorJustReturn:) turning an
// error into a last value and a completion, drive(onNext:onCompleted:) delivering in line on the main thread.
import Foundation
import RxCocoa
import RxSwift

struct Failed: Error {}

let bag = DisposeBag()

DispatchQueue.main.async {
    let messages = PublishRelay<String>()
    messages.bind(onNext: { print("message: \($0)") }).disposed(by: bag)
    Observable.of("hello", "world").bind(to: messages).disposed(by: bag)

    let latest = BehaviorRelay<Int>(value: 0)
    Observable.of(1, 2).bind(to: latest).disposed(by: bag)
    print("latest: \(latest.value)")

    let results = Observable<Int>.create { observer in
        observer.onNext(1)
        observer.onError(Failed())
        return Disposables.create()
    }
    results
        .asDriver(onErrorJustReturn: -1)
        .drive(onNext: { print("driver: \($0)") }, onCompleted: { print("driver completed") })
        .disposed(by: bag)
    print("after drive")
    exit(0)
}

RunLoop.main.run()
