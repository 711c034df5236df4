import Foundation
import Untangle
import XCTest

// Pipelines written the way Combine users write them (view models, services, forms), compiled against Untangle
// unchanged, with the exact values they must produce. Every publisher here is synchronous, so each pipeline has
// delivered everything by the time the call that triggers it returns.

private enum APIError: Error, Equatable {
    case offline
    case invalidID(Int)
    case decoding(String)
}

private struct User: Codable, Equatable {
    let id: Int
    let name: String
}

private enum ParseError: Error, Equatable {
    case notANumber(String)
    case unexpected
}

/// A view model in the usual shape: published-ish state in plain properties, fed by pipelines it owns.
private final class SearchViewModel {
    let query = PassthroughSubject<String, Never>()
    private(set) var results: [[String]] = []
    private var cancellables = Set<AnyCancellable>()
    private let catalog = ["swift", "swiftui", "combine", "concurrency", "core data"]

    init() {
        query
            .map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
            .removeDuplicates()
            .filter { $0.count >= 2 }
            .map { [catalog] term in catalog.filter { $0.hasPrefix(term) } }
            .sink { [weak self] in self?.results.append($0) }
            .store(in: &cancellables)
    }
}

private final class CounterViewModel {
    var title = ""
}

private final class UserService {
    private let users = [1: User(id: 1, name: "Ada"), 2: User(id: 2, name: "Grace")]

    func user(id: Int) -> AnyPublisher<User, APIError> {
        guard id > 0 else {
            return Fail(error: APIError.invalidID(id)).eraseToAnyPublisher()
        }
        guard let user = users[id] else {
            return Fail(error: APIError.offline).eraseToAnyPublisher()
        }
        return Just(user)
            .setFailureType(to: APIError.self)
            .eraseToAnyPublisher()
    }

    func displayName(id: Int) -> AnyPublisher<String, Never> {
        user(id: id)
            .map(\.name)
            .replaceError(with: "Unknown")
            .eraseToAnyPublisher()
    }
}

final class CombineCompatibilityTests: XCTestCase {
    private var cancellables = Set<AnyCancellable>()

    override func setUp() {
        super.setUp()
        cancellables = []
        // Released before the suite's leak check, as an app releases its cancellables when a screen goes away.
        addTeardownBlock { [weak self] in self?.cancellables = [] }
    }

    func testSearchViewModelTrimsDropsDuplicatesAndShortQueries() {
        let viewModel = SearchViewModel()
        for text in ["s", "sw", "sw ", "SW", "swiftu", "co", "co", "x"] {
            viewModel.query.send(text)
        }
        XCTAssertEqual(
            viewModel.results,
            [["swift", "swiftui"], ["swiftui"], ["combine", "concurrency", "core data"]])
    }

    func testCurrentValueSubjectMapAssignOnAnObject() {
        let count = CurrentValueSubject<Int, Never>(0)
        let viewModel = CounterViewModel()
        count
            .map { "Count: \($0)" }
            .assign(to: \.title, on: viewModel)
            .store(in: &cancellables)
        XCTAssertEqual(viewModel.title, "Count: 0", "a CurrentValueSubject replays its value at once")
        count.send(3)
        XCTAssertEqual(viewModel.title, "Count: 3")
        count.value += 1
        XCTAssertEqual(viewModel.title, "Count: 4")
        cancellables.removeAll()
        count.send(9)
        XCTAssertEqual(viewModel.title, "Count: 4", "cancelled when the storage dropped the AnyCancellable")
    }

    func testFutureCatchAndReplaceError() {
        let failing = Future<Int, APIError> { promise in promise(.failure(.offline)) }
        var caught: [Int] = []
        failing
            .catch { _ in Just(-1) }
            .sink { caught.append($0) }
            .store(in: &cancellables)
        XCTAssertEqual(caught, [-1])

        var replaced: [String] = []
        var completions: [Subscribers.Completion<Never>] = []
        failing
            .map { "value \($0)" }
            .replaceError(with: "fallback")
            .sink(receiveCompletion: { completions.append($0) }, receiveValue: { replaced.append($0) })
            .store(in: &cancellables)
        XCTAssertEqual(replaced, ["fallback"])
        XCTAssertEqual(completions, [.finished])

        var succeeded: [Int] = []
        Future<Int, APIError> { promise in promise(.success(21)) }
            .map { $0 * 2 }
            .catch { _ in Just(0) }
            .sink { succeeded.append($0) }
            .store(in: &cancellables)
        XCTAssertEqual(succeeded, [42])
    }

    func testPassthroughSubjectScanRunningTotalAndCompletion() {
        let deposits = PassthroughSubject<Int, APIError>()
        var balances: [Int] = []
        var completion: Subscribers.Completion<APIError>?
        deposits
            .scan(100) { balance, amount in balance + amount }
            .sink(receiveCompletion: { completion = $0 }, receiveValue: { balances.append($0) })
            .store(in: &cancellables)
        deposits.send(10)
        deposits.send(-30)
        deposits.send(5)
        deposits.send(completion: .failure(.offline))
        deposits.send(1000)
        XCTAssertEqual(balances, [110, 80, 85])
        XCTAssertEqual(completion, .failure(.offline))
    }

    func testArrayPublisherCollectSink() {
        var batches: [[Int]] = []
        var finished = false
        [3, 1, 2].publisher
            .map { $0 * 10 }
            .collect()
            .sink(receiveCompletion: { finished = ($0 == .finished) }, receiveValue: { batches.append($0.sorted()) })
            .store(in: &cancellables)
        XCTAssertEqual(batches, [[10, 20, 30]])
        XCTAssertTrue(finished)

        var pairs: [[String]] = []
        ["a", "b", "c", "d", "e"].publisher
            .collect(2)
            .sink { pairs.append($0) }
            .store(in: &cancellables)
        XCTAssertEqual(pairs, [["a", "b"], ["c", "d"], ["e"]])
    }

    func testRecordReplaysTheSameEventsToEverySubscriber() {
        let recording = Record<Int, APIError> { recording in
            recording.receive(1)
            recording.receive(2)
            recording.receive(completion: .failure(.invalidID(7)))
        }
        for _ in 0..<2 {
            var values: [Int] = []
            var completion: Subscribers.Completion<APIError>?
            recording
                .map { $0 + 100 }
                .sink(receiveCompletion: { completion = $0 }, receiveValue: { values.append($0) })
                .store(in: &cancellables)
            XCTAssertEqual(values, [101, 102])
            XCTAssertEqual(completion, .failure(.invalidID(7)))
        }
        XCTAssertEqual(Record<Int, Never>(output: [1, 2], completion: .finished).recording.output, [1, 2])
    }

    func testEraseToAnyPublisherInServiceSignatures() {
        let service = UserService()
        var users: [User] = []
        var failures: [APIError] = []
        for id in [1, -4, 3, 2] {
            service.user(id: id)
                .sink(
                    receiveCompletion: { if case .failure(let error) = $0 { failures.append(error) } },
                    receiveValue: { users.append($0) }
                )
                .store(in: &cancellables)
        }
        XCTAssertEqual(users, [User(id: 1, name: "Ada"), User(id: 2, name: "Grace")])
        XCTAssertEqual(failures, [.invalidID(-4), .offline])

        var names: [String] = []
        for id in [2, 9] {
            service.displayName(id: id).sink { names.append($0) }.store(in: &cancellables)
        }
        XCTAssertEqual(names, ["Grace", "Unknown"])
    }

    func testSetOfAnyCancellableKeepsSubscriptionsAliveUntilCleared() {
        let events = PassthroughSubject<String, Never>()
        var log: [String] = []
        events.map { "A:\($0)" }.sink { log.append($0) }.store(in: &cancellables)
        events.filter { $0.hasPrefix("x") }.sink { log.append("B:\($0)") }.store(in: &cancellables)
        XCTAssertEqual(cancellables.count, 2)
        events.send("x1")
        events.send("y2")
        cancellables.removeAll()
        events.send("x3")
        XCTAssertEqual(log, ["A:x1", "B:x1", "A:y2"])

        var kept: [AnyCancellable] = []
        events.sink { log.append("C:\($0)") }.store(in: &kept)
        events.send("z")
        kept.forEach { $0.cancel() }
        events.send("w")
        XCTAssertEqual(log.last, "C:z")
    }

    func testDeferredFutureRunsTheWorkOncePerSubscription() {
        var attempts = 0
        let fetch = Deferred {
            Future<Int, Never> { promise in
                attempts += 1
                promise(.success(attempts * 10))
            }
        }
        XCTAssertEqual(attempts, 0, "nothing runs before someone subscribes")
        var values: [Int] = []
        fetch.sink { values.append($0) }.store(in: &cancellables)
        fetch.sink { values.append($0) }.store(in: &cancellables)
        XCTAssertEqual(attempts, 2)
        XCTAssertEqual(values, [10, 20])

        // A bare Future, by contrast, runs its work once, at creation, and shares the result.
        var eagerRuns = 0
        let eager = Future<Int, Never> { promise in
            eagerRuns += 1
            promise(.success(7))
        }
        eager.sink { values.append($0) }.store(in: &cancellables)
        eager.sink { values.append($0) }.store(in: &cancellables)
        XCTAssertEqual(eagerRuns, 1)
        XCTAssertEqual(values, [10, 20, 7, 7])
    }

    func testTryMapMapErrorIntoADomainErrorEnum() {
        var numbers: [Int] = []
        var completion: Subscribers.Completion<ParseError>?
        ["1", "2", "x", "4"].publisher
            .tryMap { text -> Int in
                guard let number = Int(text) else { throw ParseError.notANumber(text) }
                return number
            }
            .mapError { $0 as? ParseError ?? .unexpected }
            .sink(receiveCompletion: { completion = $0 }, receiveValue: { numbers.append($0) })
            .store(in: &cancellables)
        XCTAssertEqual(numbers, [1, 2])
        XCTAssertEqual(completion, .failure(.notANumber("x")))
    }

    func testEncodeDecodeJSONRoundTrip() {
        let users = [User(id: 1, name: "Ada"), User(id: 2, name: "Grace")]
        var decoded: [User] = []
        var completion: Subscribers.Completion<Error>?
        users.publisher
            .encode(encoder: JSONEncoder())
            .decode(type: User.self, decoder: JSONDecoder())
            .sink(receiveCompletion: { completion = $0 }, receiveValue: { decoded.append($0) })
            .store(in: &cancellables)
        XCTAssertEqual(decoded, users)
        guard case .some(.finished) = completion else {
            return XCTFail("expected .finished, got \(String(describing: completion))")
        }

        var failure: APIError?
        Just(Data("{\"id\": \"one\"}".utf8))
            .decode(type: User.self, decoder: JSONDecoder())
            .mapError { _ in APIError.decoding("User") }
            .sink(receiveCompletion: { if case .failure(let error) = $0 { failure = error } }, receiveValue: { _ in })
            .store(in: &cancellables)
        XCTAssertEqual(failure, .decoding("User"))
    }

    func testFormValidationFromMergedFieldsWithScan() {
        enum Field {
            case username(String)
            case password(String)
        }
        struct Form {
            var username = ""
            var password = ""
            var isValid: Bool { username.count >= 3 && password.count >= 8 }
        }
        let username = PassthroughSubject<String, Never>()
        let password = PassthroughSubject<String, Never>()
        var validity: [Bool] = []
        username.map(Field.username)
            .merge(with: password.map(Field.password))
            .scan(Form()) { form, field in
                var form = form
                switch field {
                case .username(let text): form.username = text
                case .password(let text): form.password = text
                }
                return form
            }
            .map(\.isValid)
            .removeDuplicates()
            .sink { validity.append($0) }
            .store(in: &cancellables)
        username.send("ad")
        username.send("ada")
        password.send("secret")
        password.send("correct horse")
        username.send("ada lovelace")
        password.send("short")
        XCTAssertEqual(validity, [false, true, false])
    }

    func testLoadingFlagWithHandleEvents() {
        var isLoading = false
        var loadingStates: [Bool] = []
        var names: [String] = []
        UserService().user(id: 1)
            .handleEvents(
                receiveSubscription: { _ in
                    isLoading = true
                    loadingStates.append(true)
                },
                receiveCompletion: { _ in
                    isLoading = false
                    loadingStates.append(false)
                }
            )
            .map(\.name)
            .replaceError(with: "")
            .sink { names.append($0) }
            .store(in: &cancellables)
        XCTAssertFalse(isLoading)
        XCTAssertEqual(loadingStates, [true, false])
        XCTAssertEqual(names, ["Ada"])
    }

    func testConcretePublisherChainsKeepCombinesStaticTypes() {
        let greeting: Just<String> = Just("world").map { "Hello, \($0)!" }
        let initials: Publishers.Sequence<[Character], Never> = ["ada", "grace"].publisher.compactMap(\.first)
        let typed: Result<Int, APIError>.Publisher = Just(3).setFailureType(to: APIError.self)
        let total: Result<Int, Never>.Publisher = [1, 2, 3].publisher.reduce(0, +)
        let maybeName: Optional<String>.Publisher = Optional("ada").publisher.map { $0.capitalized }
        var log: [String] = []
        greeting.sink { log.append($0) }.store(in: &cancellables)
        initials.map(String.init).collect().sink { log.append($0.joined()) }.store(in: &cancellables)
        typed.map { "typed \($0)" }.replaceError(with: "error").sink { log.append($0) }.store(in: &cancellables)
        total.map { "total \($0)" }.sink { log.append($0) }.store(in: &cancellables)
        maybeName.replaceEmpty(with: "nobody").sink { log.append($0) }.store(in: &cancellables)
        XCTAssertEqual(log, ["Hello, world!", "ag", "typed 3", "total 6", "Ada"])
    }

    func testOptionalChainingThroughReplaceNilAndCompactMap() {
        let input = PassthroughSubject<String?, Never>()
        var shown: [String] = []
        var parsed: [Int] = []
        input.replaceNil(with: "-").sink { shown.append($0) }.store(in: &cancellables)
        input.compactMap { $0 }.compactMap(Int.init).sink { parsed.append($0) }.store(in: &cancellables)
        input.send("12")
        input.send(nil)
        input.send("abc")
        input.send("7")
        XCTAssertEqual(shown, ["12", "-", "abc", "7"])
        XCTAssertEqual(parsed, [12, 7])
    }
}
