// Disposables: CompositeDisposable disposes what it removes, what it holds when disposed, and anything inserted
// after that at once (insert then returns nil); SerialDisposable disposes the previous disposable when given a new
// one, and a new one at once after it was disposed; Disposables.create runs its action once.
import Foundation
import RxSwift

func named(_ name: String) -> Disposable {
    return Disposables.create { print("\(name) disposed") }
}

let composite = CompositeDisposable()
let keyA = composite.insert(named("a"))
_ = composite.insert(named("b"))
print("composite count: \(composite.count)")
if let keyA = keyA {
    composite.remove(for: keyA)
}
print("composite count: \(composite.count)")
composite.dispose()
print("composite disposed: \(composite.isDisposed)")
let late = composite.insert(named("late"))
print("late key is nil: \(late == nil)")

let serial = SerialDisposable()
serial.disposable = named("first")
serial.disposable = named("second")
serial.dispose()
print("serial disposed: \(serial.isDisposed)")
serial.disposable = named("third")

let once = named("once")
once.dispose()
once.dispose()
print("done")
