// The traits family: Single, Maybe and Completable onto UntangleExtras' traits, their create closures and events.

import UntangleLint
import XCTest

final class TraitRulesTests: XCTestCase {
    func testCreateKeepsItsShapeAndRenamesEvents() {
        assertMigrates(
            rxFile(
                """
                func user(id: Int) -> Single<User> {
                    return Single<User>.create { single in
                        api.user(id) { result in
                            switch result {
                            case .success(let user): single(.success(user))
                            case .failure(let error): single(.error(error))
                            }
                        }
                        return Disposables.create()
                    }
                }

                func save() -> Completable {
                    return Completable.create { completable in
                        store.save { completable(.completed) }
                        return Disposables.create()
                    }
                }

                """),
            to: untangledFile(
                """
                func user(id: Int) -> Single<User, Error> {
                    return Single<User, Error>.create { single in
                        api.user(id) { result in
                            switch result {
                            case .success(let user): single(.success(user))
                            case .failure(let error): single(.failure(error))
                            }
                        }
                        return AnyCancellable {}
                    }
                }

                func save() -> Completable<Error> {
                    return Completable<Error>.create { completable in
                        store.save { completable(.success(())) }
                        return AnyCancellable {}
                    }
                }

                """))
    }

    func testTraitValues() {
        assertMigrates(
            rxFile(
                """
                let one = Single<Int>.just(1)
                let failed = Single<Int>.error(MyError.failed)
                let nothing = Maybe<Int>.empty()
                let done = Completable.empty()
                func cached() -> Single<Int> { .just(1) }
                func missing() -> Maybe<Int> { .empty() }

                """),
            to: untangledFile(
                """
                let one = Single<Int, Error>(1)
                let failed = Single<Int, Error>(error: MyError.failed)
                let nothing = Maybe<Int, Error>.empty
                let done = Completable<Error>.empty
                func cached() -> Single<Int, Error> { Single(1) }
                func missing() -> Maybe<Int, Error> { .empty }

                """))
    }
}
