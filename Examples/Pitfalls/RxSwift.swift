// RxSwift: rx-subscribe-retain-cycle, rx-undisposed-subscription, rx-subscribe-on-main.
import RxSwift

final class FeedController {
    private let disposeBag = DisposeBag()
    private var items: [String] = []

    func bind(feed: Observable<[String]>) {
        feed.subscribe(onNext: { items in
            self.items = items  // the closure captures self; the bag (owned by self) keeps the closure
        })
        .disposed(by: disposeBag)  // finding: rx-subscribe-retain-cycle (on the subscribe line)

        feed.subscribe(onNext: { print($0) })  // finding: rx-undisposed-subscription

        feed.subscribeOn(MainScheduler.instance)  // finding: rx-subscribe-on-main
            .subscribe(onNext: { [weak self] in self?.items = $0 })
            .disposed(by: disposeBag)
    }

    // Fixed.
    func fixedBind(feed: Observable<[String]>) {
        feed.observe(on: MainScheduler.instance)
            .subscribe(onNext: { [weak self] in self?.items = $0 })
            .disposed(by: disposeBag)
    }
}
