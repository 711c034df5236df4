// A DisposeBag disposes its subscriptions when it is released with its owner, and when it is replaced.
import Foundation
import RxSwift

final class Screen {
    var bag = DisposeBag()

    init(name: String, ticks: PublishSubject<Int>) {
        ticks
            .subscribe(
                onNext: { print("\(name) got \($0)") },
                onDisposed: { print("\(name): subscription disposed") }
            )
            .disposed(by: bag)
    }

    func reset() {
        bag = DisposeBag()
    }

    deinit {
        print("screen deinit")
    }
}

let ticks = PublishSubject<Int>()
var screen: Screen? = Screen(name: "home", ticks: ticks)
ticks.onNext(1)
screen = nil
ticks.onNext(2)

let settings = Screen(name: "settings", ticks: ticks)
ticks.onNext(3)
settings.reset()
ticks.onNext(4)
print("done")
