// Subjects and relays: a BehaviorSubject's value(), a BehaviorRelay's value and accept, binding an observable to a
// relay and to a subject, a PublishSubject's completion and a ReplaySubject's buffer.
import Foundation
import RxRelay
import RxSwift

let bag = DisposeBag()

let counter = BehaviorSubject<Int>(value: 1)
print("counter value: \(try counter.value())")
counter.onNext(2)
print("counter value: \(try counter.value())")

let name = BehaviorRelay(value: "anonymous")
name.accept("ada")
print("name: \(name.value)")

let shouted = PublishRelay<String>()
shouted.subscribe(onNext: { print("shouted: \($0)") }).disposed(by: bag)
name.map { $0.uppercased() }.bind(to: shouted).disposed(by: bag)
name.accept("grace")

let events = PublishSubject<String>()
events.subscribe(
    onNext: { print("event: \($0)") },
    onError: { print("event error: \($0)") },
    onCompleted: { print("events completed") }
).disposed(by: bag)
let letters = Observable.of("a", "b")
letters.bind(to: events).disposed(by: bag)

let history = ReplaySubject<Int>.create(bufferSize: 2)
history.onNext(1)
history.onNext(2)
history.onNext(3)
history.subscribe(onNext: { print("history: \($0)") }).disposed(by: bag)
print("done")
