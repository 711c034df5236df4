// The types family: Observable<T> is AnyPublisher<T, Error>, Infallible<T> AnyPublisher<T, Never>, subjects, relays,
// traits and disposables map one to one; ObservableType extensions become Publisher extensions; what has no
// counterpart is marked.

import UntangleLint
import XCTest

final class TypeRulesTests: XCTestCase {
    func testTypesMapOneToOne() {
        assertMigrates(
            rxFile(
                """
                protocol Service {
                    func load(id: Int) -> Observable<[String]>
                    var state: Infallible<Bool> { get }
                    var upload: Completable { get }
                    var user: Single<User?> { get }
                    var avatar: Maybe<Data> { get }
                    var names: BehaviorRelay<[String]> { get }
                    var events: PublishSubject<Event> { get }
                    var history: ReplaySubject<Int> { get }
                    var bag: DisposeBag { get }
                    var handle: Disposable? { get set }
                    var composite: CompositeDisposable { get }
                    var title: Driver<String> { get }
                }
                let qualified: RxSwift.Observable<Int>

                """),
            to: untangledFile(
                """
                protocol Service {
                    func load(id: Int) -> AnyPublisher<[String], Error>
                    var state: AnyPublisher<Bool, Never> { get }
                    var upload: Completable<Error> { get }
                    var user: Single<User?, Error> { get }
                    var avatar: Maybe<Data, Error> { get }
                    var names: CurrentValueRelay<[String]> { get }
                    var events: PassthroughSubject<Event, Error> { get }
                    var history: ReplaySubject<Int, Error> { get }
                    var bag: CancelBag { get }
                    var handle: AnyCancellable? { get set }
                    var composite: CompositeCancellable { get }
                    var title: Driver<String> { get }
                }
                let qualified: AnyPublisher<Int, Error>

                """))
    }

    func testObservableTypeExtensionsBecomePublisherExtensions() {
        assertMigrates(
            rxFile(
                """
                extension ObservableType where Element == Bool {
                    func not() -> Observable<Bool> {
                        map { !$0 }
                    }
                }

                extension ObservableType {
                    func unwrap<T>() -> Observable<T> where Element == T? {
                        return compactMap { $0 }
                    }
                }

                extension Observable {
                    static func silent() -> Observable<Element> { .never() }
                }

                """),
            to: untangledFile(
                """
                extension Publisher where Output == Bool, Failure == Error {
                    func not() -> AnyPublisher<Bool, Error> {
                        map { !$0 }.eraseToAnyPublisher()
                    }
                }

                extension Publisher where Failure == Error {
                    func unwrap<T>() -> AnyPublisher<T, Error> where Output == T? {
                        return compactMap { $0 }.eraseToAnyPublisher()
                    }
                }

                extension AnyPublisher where Failure == Error {
                    static func silent() -> AnyPublisher<Output, Error> { Empty(completeImmediately: false).eraseToAnyPublisher() }
                }

                """))
    }

    func testGenericTypesWrittenInExpressions() {
        assertMigrates(
            rxFile("let subjects = [String: PublishSubject<Int>]()\nlet kind = Observable<Int>.self\n"),
            to: untangledFile(
                "let subjects = [String: PassthroughSubject<Int, Error>]()\nlet kind = AnyPublisher<Int, Error>.self\n"
            ))
    }

    func testTypesWithoutCounterpartAreMarked() {
        assertMigrates(
            rxFile("func bind(_ observer: AnyObserver<Int>, on scheduler: SchedulerType) {}\n"),
            to: untangledFile(
                """
                // untangle-migrate: AnyObserver has no counterpart: pass the subject or relay itself (send/accept), or a closure
                // untangle-migrate: SchedulerType has no counterpart: use a concrete scheduler type (DispatchQueue, MainThreadScheduler) or make the declaration generic over Scheduler
                func bind(_ observer: AnyObserver<Int>, on scheduler: SchedulerType) {}

                """),
            spots: [
                "AnyObserver has no counterpart: pass the subject or relay itself (send/accept), or a closure",
                "SchedulerType has no counterpart: use a concrete scheduler type (DispatchQueue, MainThreadScheduler) "
                    + "or make the declaration generic over Scheduler",
            ])
    }

    func testRxCocoaReactiveExtensionsAreMarked() {
        assertMigrates(
            rxFile("extension Reactive where Base: UIView {\n    var tapped: Observable<Void> { tap }\n}\n"),
            to: untangledFile(
                """
                // untangle-migrate: RxCocoa's Reactive extension: publish these events or bind these values with Untangle
                extension Reactive where Base: UIView {
                    var tapped: AnyPublisher<Void, Error> { tap }
                }

                """),
            spots: ["RxCocoa's Reactive extension: publish these events or bind these values with Untangle"])
    }

    func testSharedSequencesAndGenericObservableParameters() {
        assertMigrates(
            rxFile(
                """
                func titles() -> SharedSequence<DriverSharingStrategy, String> { model.title }
                func track<O: ObservableConvertibleType>(_ source: O) -> Observable<O.Element> {
                    return source.asObservable()
                }

                """),
            to: untangledFile(
                """
                func titles() -> Driver<String> { model.title }
                func track<O: Publisher>(_ source: O) -> AnyPublisher<O.Output, Error> where O.Failure == Error {
                    return source.eraseToAnyPublisher()
                }

                """))
    }
}
