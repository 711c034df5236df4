// Connectable observables: share(replay: 1, scope: .forever) keeps its buffer after the last subscriber left (and
// reconnects for the next one, who first gets the kept value); publish() subscribes to the source only on connect();
// replay(1) gives a late subscriber the latest value; refCount() disconnects when the last subscriber leaves.
import Foundation
import RxSwift

let bag = DisposeBag()

let readings = PublishSubject<Int>()
let cached =
    readings
    .do(onSubscribe: { print("cached: source subscribed") }, onDispose: { print("cached: source disposed") })
    .share(replay: 1, scope: .forever)
let first = cached.subscribe(onNext: { print("cached first: \($0)") })
readings.onNext(1)
first.dispose()
readings.onNext(2)
let second = cached.subscribe(onNext: { print("cached second: \($0)") })
readings.onNext(3)
second.dispose()

let hot = PublishSubject<Int>()
let published =
    hot
    .do(onSubscribe: { print("published: source subscribed") })
    .publish()
published.subscribe(onNext: { print("published a: \($0)") }).disposed(by: bag)
hot.onNext(1)
let connection = published.connect()
hot.onNext(2)
published.subscribe(onNext: { print("published b: \($0)") }).disposed(by: bag)
hot.onNext(3)
connection.dispose()
hot.onNext(4)

let temperatures = PublishSubject<Int>()
let replayed = temperatures.replay(1)
let replayConnection = replayed.connect()
temperatures.onNext(20)
temperatures.onNext(21)
replayed.subscribe(onNext: { print("replayed late: \($0)") }).disposed(by: bag)
temperatures.onNext(22)
replayConnection.dispose()

let pings = PublishSubject<Int>()
let counted =
    pings
    .do(onSubscribe: { print("counted: source subscribed") }, onDispose: { print("counted: source disposed") })
    .publish()
    .refCount()
let one = counted.subscribe(onNext: { print("counted one: \($0)") })
let two = counted.subscribe(onNext: { print("counted two: \($0)") })
pings.onNext(1)
one.dispose()
pings.onNext(2)
two.dispose()
pings.onNext(3)
print("done")
