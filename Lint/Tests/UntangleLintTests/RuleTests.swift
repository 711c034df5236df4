// Each rule on a triggering and a non-triggering example (the rule's hazard, then the usual correct spellings).

import UntangleLint
import XCTest

final class CancellableSetFromClosureTests: XCTestCase {
    let rule = CancellableSetFromClosure.description

    func testStoreIntoSetFromGlobalQueueIsReported() {
        let source = """
            final class A {
                var cancellables = Set<AnyCancellable>()
                func f() {
                    DispatchQueue.global().async {
                        p.sink { _ in }.store(in: &self.cancellables)
                    }
                    Task { cancellables.insert(p.sink { _ in }) }
                }
            }
            """
        XCTAssertEqual(
            findings(rule, in: source), ["5:29 cancellable-set-from-closure", "7:29 cancellable-set-from-closure"])
    }

    func testStoreOnTheOwningThreadOrIntoCancelBagIsNotReported() {
        let source = """
            final class A {
                var cancellables = Set<AnyCancellable>()
                let bag = CancelBag()
                func f() {
                    p.sink { _ in }.store(in: &cancellables)
                    p.map { $0 }.sink { _ in q.sink { _ in }.store(in: &self.cancellables) }.store(in: &cancellables)
                    DispatchQueue.global().async { p.sink { _ in }.store(in: self.bag) }
                    items.insert(1)
                }
            }
            """
        XCTAssertEqual(findings(rule, in: source), [])
    }

    /// Amplify's AppSyncRealTimeClient (the corpus of real fixes): an actor's Set filled from a sink's closure, which
    /// runs on the publisher's thread, and from a chain debounced on a global queue.
    func testStoreFromAnActorsChainClosureOrAnOffMainChainIsReported() {
        let source = """
            actor Client {
                var cancellables = Set<AnyCancellable>()
                func start() {
                    events.sink { event in
                        Task { await self.handle(event) }.toAnyCancellable.store(in: &self.cancellables)
                    }.store(in: &cancellables)
                }
            }
            final class Monitor {
                var cancellables = Set<AnyCancellable>()
                func watch() {
                    beats.debounce(for: .seconds(1), scheduler: DispatchQueue.global()).sink { _ in
                        retry().sink { _ in }.store(in: &self.cancellables)
                    }.store(in: &cancellables)
                    operationQueue.run(title: "refresh") { _ in
                        refresh().sink { _ in }.store(in: &self.cancellables)
                    }
                }
            }
            """
        XCTAssertEqual(
            findings(rule, in: source),
            [
                "5:64 cancellable-set-from-closure", "13:35 cancellable-set-from-closure",
                "16:37 cancellable-set-from-closure",
            ])
    }

    func testStoreInAMainChainsClosureOrUnderAQueuesSyncIsNotReported() {
        let source = """
            final class Monitor {
                var cancellables = Set<AnyCancellable>()
                func watch() {
                    beats.receive(on: DispatchQueue.main).sink { _ in
                        retry().sink { _ in }.store(in: &self.cancellables)
                    }.store(in: &cancellables)
                    stateQueue.sync { refresh().sink { _ in }.store(in: &self.cancellables) }
                    mainQueue.run { refresh().sink { _ in }.store(in: &self.cancellables) }
                }
            }
            """
        XCTAssertEqual(findings(rule, in: source), [])
    }
}

final class BarrierQueueReaderWriterTests: XCTestCase {
    let rule = BarrierQueueReaderWriter.description

    func testSyncReadsWithBarrierWritesAreReported() {
        let source = """
            final class Box {
                let queue = DispatchQueue(label: "q", attributes: .concurrent)
                var value = 0
                var current: Int { queue.sync { value } }
                func set(_ v: Int) { queue.async(flags: .barrier) { self.value = v } }
            }
            """
        XCTAssertEqual(findings(rule, in: source), ["2:9 barrier-queue-reader-writer"])
    }

    /// A queue declared elsewhere is reported at its first barrier; `self.queue` and `queue` are one queue.
    func testUndeclaredQueueIsReportedAtItsBarrier() {
        let source = """
            extension Box {
                var current: Int { self.queue.sync { value } }
                func set(_ v: Int) { queue.async(flags: .barrier) { self.value = v } }
            }
            """
        XCTAssertEqual(findings(rule, in: source), ["3:32 barrier-queue-reader-writer"])
    }

    /// Lucid's fix (the corpus of real fixes): the queues became serial, their barrier flags left as no-ops.
    func testSerialQueueWithBarrierFlagsIsNotReported() {
        let source = """
            final class Box {
                let queue = DispatchQueue(label: "q")
                var value = 0
                var current: Int { queue.sync { value } }
                func set(_ v: Int) { queue.async(flags: .barrier) { self.value = v } }
            }
            """
        XCTAssertEqual(findings(rule, in: source), [])
    }

    func testBarrierWithoutSyncReadsOrSyncOnAnotherQueueIsNotReported() {
        let source = """
            final class Box {
                func set(_ v: Int) { queue.async(flags: .barrier) { self.value = v } }
                var current: Int { other.sync { value } }
            }
            """
        XCTAssertEqual(findings(rule, in: source), [])
    }
}

final class MainQueueSyncTests: XCTestCase {
    func testMainSyncIsReported() {
        let source = """
            func f() {
                DispatchQueue.main.sync { g() }
            }
            """
        XCTAssertEqual(findings(MainQueueSync.description, in: source), ["2:24 main-queue-sync"])
    }

    func testSelfMainSyncInADispatchQueueExtensionIsReported() {
        let source = """
            extension DispatchQueue {
                static func onMain<R>(_ block: () -> R) -> R { Self.main.sync(execute: block) }
            }
            extension Other {
                static func run<R>(_ block: () -> R) -> R { Self.main.sync(execute: block) }
            }
            """
        XCTAssertEqual(findings(MainQueueSync.description, in: source), ["2:62 main-queue-sync"])
    }

    func testMainSyncGuardedByIsMainThreadOrMainAsyncIsNotReported() {
        let source = """
            func f() {
                if Thread.isMainThread { g() } else { DispatchQueue.main.sync { g() } }
            }
            func h() { DispatchQueue.main.async { g() } }
            """
        XCTAssertEqual(findings(MainQueueSync.description, in: source), [])
    }

    func testSyncOnTheQueueTheClosureRunsOnIsReported() {
        let source = """
            func f() {
                queue.async {
                    self.queue.sync { g() }
                    other.sync { g() }
                }
                queue.sync { g() }
            }
            """
        XCTAssertEqual(findings(SyncOnCurrentQueue.description, in: source), ["3:20 sync-on-current-queue"])
    }
}

final class BlockingWaitInPoolTests: XCTestCase {
    let rule = BlockingWaitInPool.description

    func testWaitsInPoolWorkTaskAndAsyncFunctionAreReported() {
        let source = """
            let semaphore = DispatchSemaphore(value: 0)
            func f() {
                DispatchQueue.global(qos: .utility).async { semaphore.wait() }
                Task { _ = semaphore.wait(timeout: .now() + 1) }
            }
            func g() async {
                let group = DispatchGroup()
                group.wait()
            }
            """
        let found = Linter.lint(source: source, path: "t.swift", rules: RuleSet(rules: [rule]))
        XCTAssertEqual(found.map { "\($0.line):\($0.column)" }, ["3:59", "4:26", "8:11"])
        XCTAssertTrue(found[1].message.contains("Task"))
        XCTAssertTrue(found[2].message.contains("async function"))
    }

    func testWaitInALoopMentionsThreadExplosion() {
        let source = """
            func f(_ n: Int) {
                let s = DispatchSemaphore(value: 0)
                for _ in 0..<n { DispatchQueue.global().async { s.wait() } }
            }
            """
        let found = Linter.lint(source: source, path: "t.swift", rules: RuleSet(rules: [rule]))
        XCTAssertEqual(found.count, 1)
        XCTAssertTrue(found[0].message.contains("thread explosion"))
    }

    /// Brave's deadlock fix (the corpus of real fixes): a global queue's work waited for the main context.
    func testPerformAndWaitInGlobalQueueWorkIsReported() {
        let source = """
            func stats(for domain: Domain) {
                DispatchQueue.global().async {
                    domain.managedObjectContext?.performAndWait { lists = domain.blocklists }
                }
                Task { context.performAndWait { count = context.count } }
                context.performAndWait { count = context.count }
            }
            """
        let found = Linter.lint(source: source, path: "t.swift", rules: RuleSet(rules: [rule]))
        XCTAssertEqual(found.map { "\($0.line):\($0.column)" }, ["3:38"])
        XCTAssertTrue(found[0].message.contains("performAndWait"))
    }

    func testWaitsOutsidePoolsAndOtherWaitsAreNotReported() {
        let source = """
            let semaphore = DispatchSemaphore(value: 0)
            func f() {
                semaphore.wait()
                serial.async { semaphore.wait() }
                DispatchQueue.global().async { try? future.wait(); condition.wait() }
            }
            func g() async { await task.value }
            """
        XCTAssertEqual(findings(rule, in: source), [])
    }
}

final class SinkRetainCycleTests: XCTestCase {
    let rule = SinkRetainCycle.description

    func testStrongSelfInStoredSinkIsReported() {
        let source = """
            final class VM {
                func bind() {
                    p.sink { self.x = $0 }.store(in: &cancellables)
                    self.c = p.sink(receiveValue: self.handle)
                }
            }
            """
        XCTAssertEqual(findings(rule, in: source), ["3:11 sink-retain-cycle", "4:20 sink-retain-cycle"])
    }

    func testWeakSelfUnstoredStructOrNoSelfIsNotReported() {
        let source = """
            final class VM {
                func bind() {
                    p.sink { [weak self] in self?.x = $0 }.store(in: &cancellables)
                    p.sink { print($0) }.store(in: &cancellables)
                    let c = p.sink { self.x = $0 }
                }
            }
            struct V {
                func bind() { p.sink { self.x = $0 }.store(in: &cancellables) }
            }
            """
        XCTAssertEqual(findings(rule, in: source), [])
    }

    func testAssignOnSelfIsReported() {
        let source = """
            final class VM {
                @Published var name = ""
                init() {
                    p.assign(to: \\.name, on: self).store(in: &cancellables)
                    p.assign(to: \\.name, on: other).store(in: &cancellables)
                    p.assign(to: &$name)
                }
            }
            """
        XCTAssertEqual(findings(AssignOnSelf.description, in: source), ["4:11 assign-on-self"])
    }
}

final class DiscardedCancellableTests: XCTestCase {
    func testDiscardedSinkAndAssignAreReported() {
        let source = """
            func f() {
                _ = p.sink { print($0) }
                p.sink(receiveValue: { print($0) })
                _ = p.assign(to: \\.x, on: model)
            }
            """
        XCTAssertEqual(
            findings(DiscardedCancellable.description, in: source),
            ["2:11 discarded-cancellable", "3:7 discarded-cancellable", "4:11 discarded-cancellable"])
    }

    func testKeptOrReturnedSinkIsNotReported() {
        let source = """
            func f() -> AnyCancellable {
                c = p.sink { print($0) }
                p.sink { print($0) }.store(in: &cancellables)
                let d = p.sink { _ in }
                return p.sink { print($0) }
            }
            let g = { p.sink { print($0) } }
            """
        XCTAssertEqual(findings(DiscardedCancellable.description, in: source), [])
    }

    func testSynchronousSourcesAndTestFilesAreNotReported() {
        let synchronous = """
            func f() {
                _ = Just(1).sink { print($0) }
                _ = [1, 2].publisher.sink { print($0) }
                _ = (1...3).publisher.map { $0 * 2 }.sink { print($0) }
                _ = Record(output: [1], completion: .finished).sink { print($0) }
            }
            """
        XCTAssertEqual(findings(DiscardedCancellable.description, in: synchronous), [])
        let test = """
            import XCTest
            final class T: XCTestCase {
                func testIt() { _ = subject.sink { print($0) } }
            }
            """
        XCTAssertEqual(findings(DiscardedCancellable.description, in: test), [])
    }

    /// Cycler's fix (`_ = Publishers.MergeMany(...).sink` in an initializer, kept after the fix as a stored
    /// cancellable): the feedback loop stopped as soon as it started.
    func testDiscardedMergeOfFeedbacksIsReported() {
        let source = """
            final class Loop {
                init(feedbacks: [Feedback]) {
                    _ = Publishers.MergeMany(feedbacks.map { $0.effects(output) })
                        .sink { [weak self] event in self?.process(event) }
                }
            }
            """
        XCTAssertEqual(findings(DiscardedCancellable.description, in: source), ["4:14 discarded-cancellable"])
    }

    /// OpenCombine's tests discard the cancellables of synchronous publishers (`Record`, sequences) on purpose.
    func testTestCodeIsNotReported() {
        let source =
            "import XCTest\nfunc testRecord() {\n    _ = Record(output: [1], completion: .finished).sink { _ in }\n}\n"
        XCTAssertEqual(findings(DiscardedCancellable.description, in: source), [])
        let plain = "func listen() {\n    _ = events.sink { print($0) }\n}\n"
        XCTAssertEqual(
            findings(DiscardedCancellable.description, in: plain, path: "Tests/OpenCombineTests/A.swift"), [])
        XCTAssertEqual(
            findings(DiscardedCancellable.description, in: plain, path: "Sources/App/A.swift"),
            ["2:16 discarded-cancellable"])
        XCTAssertTrue(DiscardedCancellable.description.enabledByDefault)
    }
}

final class UnsynchronizedSubscriptionTests: XCTestCase {
    let rule = UnsynchronizedSubscription.description

    func testUnlockedMutationInRequestAndCancelIsReported() {
        let source = """
            final class S: Subscription {
                var demand = Subscribers.Demand.none
                func request(_ demand: Subscribers.Demand) { self.demand += demand }
                func cancel() { subscriber = nil }
            }
            """
        XCTAssertEqual(
            findings(rule, in: source), ["3:10 unsynchronized-subscription", "4:10 unsynchronized-subscription"])
    }

    func testLockedOrNonSubscriptionIsNotReported() {
        let source = """
            final class S: Subscription {
                func request(_ demand: Subscribers.Demand) { lock.withLock { self.demand += demand } }
                func cancel() { state.withCriticalSection { $0 = .cancelled } }
            }
            final class T: Cancellable {
                func cancel() { subscriber = nil }
            }
            final class U: Subscription {
                func request(_ demand: Subscribers.Demand) { upstream.request(demand) }
                func cancel() { upstream.cancel() }
            }
            """
        XCTAssertEqual(findings(rule, in: source), [])
    }
}

final class SchedulerRuleTests: XCTestCase {
    func testReceiveOnConcurrentQueueIsReported() {
        let source = """
            let pool = DispatchQueue(label: "p", attributes: .concurrent)
            let serial = DispatchQueue(label: "s")
            func f() {
                a.receive(on: DispatchQueue.global()).sink { _ in }
                a.receive(on: pool).sink { _ in }
                a.receive(on: serial).sink { _ in }
                a.receive(on: DispatchQueue.main).sink { _ in }
            }
            """
        XCTAssertEqual(
            findings(ReceiveOnConcurrentQueue.description, in: source),
            ["4:7 receive-on-concurrent-queue", "5:7 receive-on-concurrent-queue"])
    }

    func testSubscribeOnTwiceIsReportedOncePerChain() {
        let source = """
            let x = a.subscribe(on: q1).map { $0 }.subscribe(on: q2).subscribe(on: q3)
            let y = a.subscribe(on: q1).receive(on: q2)
            """
        XCTAssertEqual(findings(SubscribeOnTwice.description, in: source), ["1:58 subscribe-on-twice"])
    }

    func testEagerFutureIsReportedWhenReturned() {
        let source = """
            func a() -> Future<Int, Never> { Future { $0(.success(1)) } }
            func b() -> AnyPublisher<Int, Never> {
                return Future { $0(.success(1)) }.eraseToAnyPublisher()
            }
            func c() -> AnyPublisher<Int, Never> { Deferred { Future { $0(.success(1)) } }.eraseToAnyPublisher() }
            func d() { let f = Future<Int, Never> { $0(.success(1)) }; f.sink { _ in }.store(in: &c) }
            """
        XCTAssertEqual(findings(EagerFuture.description, in: source), ["1:34 eager-future", "3:12 eager-future"])
    }
}

final class RxRuleTests: XCTestCase {
    func testRxRetainCycleUndisposedAndSubscribeOnMain() {
        let source = """
            final class C {
                func bind() {
                    feed.subscribe(onNext: { self.items = $0 }).disposed(by: bag)
                    feed.subscribe(onNext: { [weak self] in self?.items = $0 }).disposed(by: bag)
                    feed.subscribe(onNext: { print($0) })
                    feed.subscribeOn(MainScheduler.instance).subscribe(onNext: { print($0) }).disposed(by: bag)
                    publisher.subscribe(subscriber)
                }
            }
            """
        let found = allFindings(in: source).map { "\($0.line):\($0.column) \($0.ruleID)" }
        XCTAssertEqual(
            found,
            [
                "3:14 rx-subscribe-retain-cycle", "5:14 rx-undisposed-subscription", "6:14 rx-subscribe-on-main",
            ])
    }
}

extension RxRuleTests {
    // Found on RxSwift's tests, SwiftHub and unstoppable-wallet-ios (the precision review): `String.self` is not a
    // capture of self; a Single's closures are released when its one result arrives; `_ =` is a decision.
    func testMetatypesOneShotSequencesAndExplicitDiscardsAreNotReported() {
        let source = """
            final class C {
                func bind() {
                    subscription = outer.subscribe(onNext: { group in results[group.key] = make(String.self) })
                    request.subscribe(onSuccess: { [weak self] in self?.value = $0 }, onFailure: { self.error = $0 })
                        .disposed(by: bag)
                    _ = Observable.of(1, 2).subscribe(onNext: { print($0) })
                    _ = button.rx.tap
                        .subscribe(onNext: { print("tap") })
                }
            }
            """
        XCTAssertEqual(allFindings(in: source).map { "\($0.line):\($0.column) \($0.ruleID)" }, [])
    }
}

final class RxDisposeBagReassignedTests: XCTestCase {
    let rule = RxDisposeBagReassigned.description

    func testBagReassignedFromAnotherThreadWhileInsertedElsewhereIsReported() {
        let source = """
            final class Feed {
                var disposeBag = DisposeBag()
                var cellBag: DisposeBag?
                func bind() {
                    items.subscribe(onNext: { print($0) }).disposed(by: disposeBag)
                    names.bind(to: label.rx.text).disposed(by: cellBag!)
                    DispatchQueue.global().async { self.disposeBag = DisposeBag() }
                    reset.observe(on: ConcurrentDispatchQueueScheduler(qos: .utility))
                        .subscribe(onNext: { [weak self] in self?.disposeBag = DisposeBag() })
                        .disposed(by: disposeBag)
                    reset.subscribeOn(backgroundScheduler).subscribe(onNext: { self.cellBag = nil })
                    Task.detached { self.disposeBag = .init() }
                    Thread { self.disposeBag = DisposeBag() }.start()
                    Observable<Int>.interval(.seconds(5), scheduler: ConcurrentDispatchQueueScheduler(qos: .utility))
                        .subscribe(onNext: { _ in self.disposeBag = DisposeBag() })
                }
            }
            """
        XCTAssertEqual(
            findings(rule, in: source),
            [
                "7:40 rx-disposebag-reassigned-across-threads", "9:49 rx-disposebag-reassigned-across-threads",
                "11:68 rx-disposebag-reassigned-across-threads", "12:25 rx-disposebag-reassigned-across-threads",
                "13:18 rx-disposebag-reassigned-across-threads", "15:39 rx-disposebag-reassigned-across-threads",
            ])
    }

    // Every file reaches a static or global bag: reassigned off the main thread, it is reported even with no other use
    // in the file. Reassigned on the main thread (UI helpers do), it is not.
    func testStaticOrGlobalBagReassignedOffTheMainThreadIsReported() {
        let source = """
            var sharedBag = DisposeBag()
            enum Session {
                static var bag = DisposeBag()
                static func logOut() { bag = DisposeBag() }
                static func expire() { DispatchQueue.global().async { bag = DisposeBag() } }
            }
            func reset() { queue.async { sharedBag = DisposeBag(); Session.bag = DisposeBag() } }
            func resetOnMain() { DispatchQueue.main.async { sharedBag = DisposeBag(); Session.bag = DisposeBag() } }
            """
        XCTAssertEqual(
            findings(rule, in: source),
            [
                "5:59 rx-disposebag-reassigned-across-threads", "7:30 rx-disposebag-reassigned-across-threads",
                "7:56 rx-disposebag-reassigned-across-threads",
            ])
    }

    // DisposeBag.insert locks: sharing a bag between threads for disposed(by:) alone is safe.
    func testSharedBagReassignedOnItsOwnThreadIsNotReported() {
        let source = """
            final class Feed: UIViewController {
                var disposeBag = DisposeBag()
                static let shared = DisposeBag()
                func bind() {
                    DispatchQueue.global().async { items.subscribe(onNext: { print($0) }).disposed(by: self.disposeBag) }
                    DispatchQueue.main.async { self.disposeBag = DisposeBag() }
                    reset.observe(on: MainScheduler.instance).subscribe(onNext: { self.disposeBag = DisposeBag() })
                    reset.observeOn(bg).map { $0 }.asDriver(onErrorJustReturn: 0).drive(onNext: { _ in
                        self.disposeBag = DisposeBag()
                    })
                    logOut.subscribe(onNext: { self.disposeBag = DisposeBag() })
                    query.debounce(.milliseconds(300), scheduler: MainScheduler.instance)
                        .subscribe(onNext: { _ in self.disposeBag = DisposeBag() })
                    query.delaySubscription(.seconds(1), scheduler: MainScheduler.instance).observeOn(MainScheduler.instance)
                        .subscribe(onNext: { _ in self.disposeBag = DisposeBag() })
                    button.rx.tap.subscribe(onNext: { [weak self] in self?.disposeBag = DisposeBag() })
                    Task { self.disposeBag = DisposeBag() }
                    DispatchQueue.global().async {
                        let bag = DisposeBag()
                        var local = DisposeBag()
                        local = DisposeBag()
                        DispatchQueue.main.async { self.disposeBag = bag }
                    }
                    ConcurrentDispatchQueueScheduler(qos: .utility).schedule(()) { _ in Disposables.create() }
                        .disposed(by: Feed.shared)
                }
                func prepareForReuse() { disposeBag = DisposeBag() }
            }
            final class Worker {
                var bag = DisposeBag()
                func restart() { queue.async { self.bag = DisposeBag(); work.subscribe().disposed(by: self.bag) } }
            }
            """
        XCTAssertEqual(findings(rule, in: source), [])
    }

    func testScriptVariablesAreNotGlobals() {
        let source = """
            var disposeBag = DisposeBag()
            example("reset") {
                disposeBag = DisposeBag()
            }
            """
        XCTAssertEqual(findings(rule, in: source), [])
    }
}
