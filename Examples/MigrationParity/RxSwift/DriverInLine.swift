// A Driver delivers in line on the main thread: a label driven from viewDidLoad shows its value at once, and a
// value accepted on the main thread is there on the next line. A value from another thread arrives on main later.
import Foundation
import RxCocoa
import RxSwift

final class ViewModel {
    let title = BehaviorRelay<String>(value: "Loading")

    var titleText: Driver<String> {
        title.asDriver()
    }

    var shouting: Driver<String> {
        title.asDriver().map { $0.uppercased() }
    }
}

final class Label {
    var text = ""
}

let bag = DisposeBag()

DispatchQueue.main.async {
    let model = ViewModel()
    let label = Label()
    let banner = Label()
    model.titleText.drive(onNext: { label.text = $0 }).disposed(by: bag)
    model.shouting
        .drive(onNext: { text in
            banner.text = text
        })
        .disposed(by: bag)
    print("after drive: \(label.text) / \(banner.text)")
    model.title.accept("Ready")
    print("after accept on main: \(label.text) / \(banner.text)")
    DispatchQueue.global().async {
        model.title.accept("From background")
        DispatchQueue.main.async {
            print("after accept on another thread: \(label.text) / \(banner.text)")
            exit(0)
        }
    }
}

RunLoop.main.run()
