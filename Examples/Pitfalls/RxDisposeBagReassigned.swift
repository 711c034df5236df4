// RxSwift: rx-disposebag-reassigned-across-threads.
import RxSwift

final class SearchController {
    private var disposeBag = DisposeBag()
    private let results = PublishSubject<[String]>()

    func bind(query: Observable<String>, api: SearchAPI) {
        query.flatMapLatest { api.search($0) }
            .subscribe(onNext: { [weak self] in self?.results.onNext($0) })
            .disposed(by: disposeBag)  // main thread: reads the disposeBag property
    }

    func logOut(session: Observable<Void>) {
        session.observe(on: ConcurrentDispatchQueueScheduler(qos: .utility))
            .subscribe(onNext: { [weak self] in
                self?.disposeBag = DisposeBag()  // finding: replaced on a pool thread while bind() reads it
            })
            .disposed(by: disposeBag)
    }

    // Fixed: replace the bag on the main thread, the one every bind() runs on.
    func fixedLogOut(session: Observable<Void>) {
        session.observe(on: MainScheduler.instance)
            .subscribe(onNext: { [weak self] in self?.disposeBag = DisposeBag() })
            .disposed(by: disposeBag)
    }
}

// Not reported: DisposeBag.insert takes the bag's lock, so disposed(by:) from several threads into one bag is safe.
final class Prefetcher {
    private let disposeBag = DisposeBag()

    func prefetch(urls: [URL], loader: ImageLoader) {
        for url in urls {
            DispatchQueue.global().async {
                loader.load(url).subscribe().disposed(by: self.disposeBag)
            }
        }
    }
}
