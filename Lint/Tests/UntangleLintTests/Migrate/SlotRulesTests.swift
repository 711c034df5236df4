// The slots family: a value going into a declared Observable, Driver or Signal place is erased or converted, with its
// failure made Error where it cannot fail.

import UntangleLint
import XCTest

final class SlotRulesTests: XCTestCase {
    func testValuesGoingIntoObservablePlacesAreErased() {
        assertMigrates(
            rxFile(
                """
                final class ViewModel {
                    private let loading = BehaviorRelay(value: false)
                    private let items = PublishSubject<[Item]>()
                    let count: Observable<Int>

                    var isLoading: Observable<Bool> {
                        return loading.asObservable()
                    }

                    var itemList: Observable<[Item]> { items }

                    init() {
                        count = items.map { $0.count }
                    }
                }

                """),
            to: untangledFile(
                """
                final class ViewModel {
                    private let loading = CurrentValueRelay(false)
                    private let items = PassthroughSubject<[Item], Error>()
                    let count: AnyPublisher<Int, Error>

                    var isLoading: AnyPublisher<Bool, Error> {
                        return loading.setFailureType(to: Error.self).eraseToAnyPublisher()
                    }

                    var itemList: AnyPublisher<[Item], Error> { items.eraseToAnyPublisher() }

                    init() {
                        count = items.map { $0.count }.eraseToAnyPublisher()
                    }
                }

                """))
    }

    func testAChainOnOneLinePerOperatorKeepsThatLayout() {
        assertMigrates(
            rxFile(
                """
                func search(_ query: Observable<String>) -> Observable<[String]> {
                    return query
                        .debounce(.milliseconds(300), scheduler: MainScheduler.instance)
                        .flatMapLatest { api.search($0) }
                }

                """),
            to: untangledFile(
                """
                func search(_ query: AnyPublisher<String, Error>) -> AnyPublisher<[String], Error> {
                    return query
                        .debounce(for: .milliseconds(300), scheduler: MainThreadScheduler.shared, onFinish: .deliverPendingValue)
                        .flatMapLatest { api.search($0) }
                        .eraseToAnyPublisher()
                }

                """))
    }

    func testDriverPlacesGetADriver() {
        assertMigrates(
            rxFile(
                """
                let names = BehaviorRelay(value: [String]())
                var title: Driver<String> {
                    names.asDriver().map { "\\($0.count) names" }
                }
                var direct: Driver<[String]> { names.asDriver() }
                var taps: Signal<Void> { tapRelay.asSignal() }

                """),
            to: untangledFile(
                """
                let names = CurrentValueRelay([String]())
                var title: Driver<String> {
                    names.asDriver().map { "\\($0.count) names" }.asDriver()
                }
                var direct: Driver<[String]> { names.asDriver() }
                var taps: Signal<Void> { tapRelay.asSignal() }

                """))
    }
}
