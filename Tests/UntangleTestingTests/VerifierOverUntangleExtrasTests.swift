import Foundation
import Untangle
import UntangleExtras
import UntangleSync
import UntangleTesting
import XCTest

/// PublisherVerifier over every publisher and operator of UntangleExtras: the extras' own contract test.
///
/// TO ADD A PUBLISHER OR OPERATOR, ADD ONE LINE to one of the `VerifiedExtras` tables below, built with the same
/// `VerifiedPublisher.cold` / `.hot` helpers as `VerifierOverUntangleTests.swift`. Every entry runs every rule.
///
/// The class name ends in ConcurrencyTests because several rules drive the publisher from several threads: CI runs
/// it under ThreadSanitizer.
final class VerifierOverUntangleExtrasConcurrencyTests: XCTestCase {
    func testEveryExtrasOperatorKeepsTheContract() {
        for entry in VerifiedExtras.operators {
            entry.verify().assertPassed { XCTFail($0) }
        }
    }

    func testEveryExtrasSourceAndSubjectKeepsTheContract() {
        for entry in VerifiedExtras.sources {
            entry.verify().assertPassed { XCTFail($0) }
        }
    }

    func testEveryExtrasTimedOperatorKeepsTheContract() {
        for entry in VerifiedExtras.timed {
            entry.verify().assertPassed { XCTFail($0) }
        }
    }

    /// `Driver` delivers on the main queue: the verifier runs on a background thread while the main run loop turns.
    func testEveryDriverKeepsTheContract() {
        verifyWhileTheMainRunLoopTurns(VerifiedExtras.drivers)
    }

    /// Guards the tables themselves: every entry ran the substantive rules (none silently "not applicable").
    func testEveryExtrasEntryRunsTheDemandAndCancelRules() {
        for entry in VerifiedExtras.operators + VerifiedExtras.sources + VerifiedExtras.timed
        where entry.promisesValues {
            let report = entry.verify(rules: [.demandStepwise, .cancelIdempotent, .concurrentRequests])
            XCTAssertEqual(report.results.map(\.outcome), [.passed, .passed, .passed], "\(report)")
        }
    }
}

/// An object for `withUnretained(_:)`, kept alive by the table entry that uses it.
private final class Owner: @unchecked Sendable {}

/// A resource for `using(_:_:)`.
private final class Resource: Cancellable, @unchecked Sendable {
    func cancel() {}
}

enum VerifiedExtras {
    static let hundred = Array(0..<100)
    static let queue = DispatchQueue(label: "VerifierOverUntangleExtras.serial")
    static let oneMillisecond = DispatchQueue.SchedulerTimeType.Stride.milliseconds(1)
    static let failing = Record<Int, TestFailure>(output: Array(0..<100), completion: .failure(TestFailure()))

    // Operators without a scheduler.
    static var operators: [VerifiedPublisher] {
        [
            .cold("materialize", .exactly(101)) { hundred.publisher.materialize() },
            .cold("materialize (failure)", .exactly(101)) { failing.materialize() },
            // The completion arrives as a value of the materialized upstream: seeing it takes one more unit of demand.
            .cold("dematerialize", .exactly(100), pulls: true) { hundred.publisher.materialize().dematerialize() },
            .cold("nwise", .exactly(98)) { hundred.publisher.nwise(3) },
            .cold("pairwise", .exactly(99)) { hundred.publisher.pairwise() },
            .cold("withUnretained", .exactly(100)) {
                let owner = Owner()
                return hundred.publisher.withUnretained(owner).map { _, value in withExtendedLifetime(owner) { value } }
            },
            .cold("using", .exactly(100)) {
                AnyPublisher<Int, Never>.using({ Resource() }, { _ in hundred.publisher })
            },
            .cold("withLatestFrom", .exactly(100)) { hundred.publisher.withLatestFrom(Just(1)) },
            .cold("withLatestFrom(_:resultSelector:)", .exactly(100)) {
                hundred.publisher.withLatestFrom(Just(1), resultSelector: +)
            },
            .cold("withLatestFrom of 2", .exactly(100)) { hundred.publisher.withLatestFrom(Just(1), Just(2)) },
            .cold("withLatestFrom of 2, resultSelector", .exactly(100)) {
                hundred.publisher.withLatestFrom(Just(1), Just(2)) { $0 + $1.0 + $1.1 }
            },
            .cold("withLatestFrom of 3", .exactly(100)) { hundred.publisher.withLatestFrom(Just(1), Just(2), Just(3)) },
            .cold("withLatestFrom of 3, resultSelector", .exactly(100)) {
                hundred.publisher.withLatestFrom(Just(1), Just(2), Just(3)) { $0 + $1.0 + $1.1 + $1.2 }
            },
            // The outer sequence replaces each inner at once, so only the last inner is sure to deliver.
            .cold("flatMapLatest", .atLeast(1)) { hundred.publisher.flatMapLatest { Just($0) } },
            .cold("flatMapLatest (inner may fail)", .atLeast(1)) {
                hundred.publisher.flatMapLatest { Just($0).setFailureType(to: TestFailure.self) }
            },
            .cold("flatMapLatest (outer may fail)", .atLeast(1)) {
                hundred.publisher.setFailureType(to: TestFailure.self).flatMapLatest { Just($0) }
            },
            .cold("flatMapLatest (both may fail)", .atLeast(1)) {
                hundred.publisher.setFailureType(to: TestFailure.self).flatMapLatest {
                    Just($0).setFailureType(to: TestFailure.self)
                }
            },
            // Outer values that arrive while an inner runs are dropped: only the first inner is sure to deliver.
            .cold("flatMapFirst", .atLeast(2)) { hundred.publisher.flatMapFirst { [$0, $0].publisher } },
            .cold("flatMapFirst (inner may fail)", .atLeast(2)) {
                hundred.publisher.flatMapFirst { [$0, $0].publisher.setFailureType(to: TestFailure.self) }
            },
            .cold("flatMapFirst (outer may fail)", .atLeast(2)) {
                hundred.publisher.setFailureType(to: TestFailure.self).flatMapFirst { [$0, $0].publisher }
            },
            .cold("flatMapFirst (both may fail)", .atLeast(2)) {
                hundred.publisher.setFailureType(to: TestFailure.self).flatMapFirst {
                    [$0, $0].publisher.setFailureType(to: TestFailure.self)
                }
            },
            .cold("concatMap", .exactly(200)) { hundred.publisher.concatMap { [$0, $0].publisher } },
            .cold("concatMap (inner may fail)", .exactly(200)) {
                hundred.publisher.concatMap { [$0, $0].publisher.setFailureType(to: TestFailure.self) }
            },
            .cold("concatMap (outer may fail)", .exactly(200)) {
                hundred.publisher.setFailureType(to: TestFailure.self).concatMap { [$0, $0].publisher }
            },
            .cold("concatMap (both may fail)", .exactly(200)) {
                hundred.publisher.setFailureType(to: TestFailure.self).concatMap {
                    [$0, $0].publisher.setFailureType(to: TestFailure.self)
                }
            },
            // Two retries, then the trigger has finished while the third attempt runs: its failure ends the result.
            .cold("retry(when:)", .exactly(300)) {
                failing.retry(when: { $0.prefix(2).map { _ in () }.setFailureType(to: TestFailure.self) })
            },
            .cold("retry(_:backoff:) on ImmediateScheduler", .exactly(300)) {
                failing.retry(2, backoff: .immediate, scheduler: ImmediateScheduler.shared)
            },
            .cold("amb", .exactly(100)) { hundred.publisher.amb(Empty(completeImmediately: false)) },
            .cold("amb (the other wins)", .exactly(100)) {
                Empty<Int, Never>(completeImmediately: false).amb(hundred.publisher)
            },
            // The sampler's completion is a last tick: it samples the upstream's last value, then finishes.
            .cold("sample (sampler finishes at once)", .exactly(1)) { hundred.publisher.sample(Empty<Void, Never>()) },
            .cold("groupBy", .exactly(4)) { hundred.publisher.groupBy { $0 % 4 } },
            .cold("groupBy, flattened", .exactly(100)) {
                hundred.publisher.groupBy { $0 % 4 }.flatMap { $0 }
            },
            // The completion becomes a value (the `.completion` event), which waits for demand like any other.
            .hot("materialize over a subject", pulls: true) { $0.materialize() },
            .hot("dematerialize over a subject", pulls: true) { $0.materialize().dematerialize() },
            .hot("nwise over a subject") { $0.nwise(2) },
            .hot("withUnretained over a subject") {
                let owner = Owner()
                return $0.withUnretained(owner).map { _, value in withExtendedLifetime(owner) { value } }
            },
            .hot("withLatestFrom over a subject") { $0.withLatestFrom(Just(1).setFailureType(to: TestFailure.self)) },
            .hot("withLatestFrom a subject") {
                let (upstream, other) = (PassthroughSubject<Int, Never>(), CurrentValueSubject<Int, Never>(0))
                return VerifierFixture(
                    upstream.withLatestFrom(other),
                    drive: {
                        other.send($0)
                        upstream.send($0)
                    }, finish: { upstream.send(completion: .finished) })
            },
            .hot("flatMapLatest over a subject") { $0.flatMapLatest { Just($0) } },
            .hot("flatMapFirst over a subject") { $0.flatMapFirst { Just($0) } },
            .hot("concatMap over a subject") { $0.concatMap { Just($0) } },
            .hot("share(replay:) over a subject") { $0.share(replay: 1) },
            .hot("retry(when:) over a subject") {
                $0.retry(when: { $0.map { _ in () }.setFailureType(to: TestFailure.self) })
            },
            .hot("amb of two subjects") {
                let (first, second) = (PassthroughSubject<Int, Never>(), PassthroughSubject<Int, Never>())
                return VerifierFixture(
                    first.amb(second), drive: { first.send($0) }, finish: { first.send(completion: .finished) })
            },
            .hot("sample of two subjects") {
                let (upstream, sampler) = (PassthroughSubject<Int, Never>(), PassthroughSubject<Void, Never>())
                return VerifierFixture(
                    upstream.sample(sampler),
                    drive: {
                        upstream.send($0)
                        sampler.send(())
                    },
                    finish: {
                        upstream.send(completion: .finished)
                        sampler.send(completion: .finished)
                    })
            },
            // Each drive sends a new key, so each makes a new group (the verifier drives with small thread indexes).
            .hot("groupBy over a subject") {
                let (subject, counter) = (PassthroughSubject<Int, Never>(), LockedBox(0))
                return VerifierFixture(
                    subject.groupBy { $0 },
                    drive: { _ in
                        subject.send(
                            counter.withLock {
                                $0 += 1; return $0
                            })
                    },
                    finish: { subject.send(completion: .finished) })
            },
            .hot("groupBy over a subject, flattened") { $0.groupBy { $0 % 2 }.flatMap { $0 } },
        ]
    }

    // Sources, subjects, relays and traits.
    static var sources: [VerifiedPublisher] {
        [
            .cold("create (synchronous)", .exactly(100)) {
                AnyPublisher<Int, Never>.create { subscriber in
                    hundred.forEach { subscriber.send($0) }
                    subscriber.send(completion: .finished)
                    return AnyCancellable {}
                }
            },
            .cold("create (another thread)", .exactly(100)) {
                Publishers.Create<Int, TestFailure> { subscriber in
                    queue.async {
                        hundred.forEach { subscriber.send($0) }
                        subscriber.send(completion: .failure(TestFailure()))
                    }
                    return AnyCancellable {}
                }
            },
            .hot("create (driven)") {
                // The producer forgets each subscriber when its cancellable runs (after cancel or completion).
                let subscribers = LockedBox<[UUID: Publishers.Create<Int, Never>.Subscriber]>([:])
                let publisher = Publishers.Create<Int, Never> { subscriber in
                    let id = UUID()
                    subscribers.withLock { $0[id] = subscriber }
                    return AnyCancellable { subscribers.withLock { $0[id] = nil } }
                }
                return VerifierFixture(
                    publisher, drive: { value in subscribers.withLock { $0 }.values.forEach { $0.send(value) } },
                    finish: { subscribers.withLock { $0 }.values.forEach { $0.send(completion: .finished) } })
            },
            .cold("ReplaySubject (completed, replaying)", .exactly(100)) {
                let subject = ReplaySubject<Int, TestFailure>.unbounded()
                hundred.forEach(subject.send)
                subject.send(completion: .failure(TestFailure()))
                return subject
            },
            .hot("ReplaySubject(bufferSize:)") {
                let subject = ReplaySubject<Int, Never>(bufferSize: 2)
                return VerifierFixture(
                    subject, drive: { subject.send($0) }, finish: { subject.send(completion: .finished) })
            },
            .hot("ReplaySubject.unbounded") {
                let subject = ReplaySubject<Int, Never>.unbounded()
                return VerifierFixture(
                    subject, drive: { subject.send($0) }, finish: { subject.send(completion: .finished) })
            },
            // Relays never complete: no finish closure, so the completion rules report "not applicable".
            .hot("PassthroughRelay") {
                let relay = PassthroughRelay<Int>()
                return VerifierFixture(relay, drive: { relay.accept($0) })
            },
            .hot("CurrentValueRelay") {
                let relay = CurrentValueRelay<Int>(0)
                return VerifierFixture(relay, drive: { relay.accept($0) })
            },
            // One `next()` per unit of demand: learning that the sequence ended takes one more.
            .cold("AsyncSequencePublisher", .exactly(100), pulls: true) {
                AsyncSequencePublisher(
                    AsyncStream<Int> { continuation in
                        hundred.forEach { continuation.yield($0) }
                        continuation.finish()
                    })
            },
            .cold("AsyncFuture", .exactly(1)) { AsyncFuture { 1 } },
            .cold("AsyncFuture (throwing)", .exactly(0)) { AsyncFuture<Int, any Error> { throw TestFailure() } },
            .cold("Single(value)", .exactly(1)) { Single<Int, TestFailure>(1) },
            .cold("Single(error:)", .exactly(0)) { Single<Int, TestFailure>(error: TestFailure()) },
            .cold("Single(promise), another thread", .exactly(1)) {
                Single<Int, TestFailure> { promise in queue.async { promise(.success(1)) } }
            },
            .cold("Single.create", .exactly(1)) {
                Single<Int, TestFailure>.create { promise in
                    promise(.success(1))
                    return AnyCancellable {}
                }
            },
            .cold("Single.map", .exactly(1)) { Single<Int, TestFailure>(1).map { $0 + 1 } },
            .cold("Single.tryMap", .exactly(1)) { Single<Int, TestFailure>(1).tryMap { $0 + 1 } },
            .cold("Single.mapError", .exactly(0)) {
                Single<Int, TestFailure>(error: TestFailure()).mapError { $0 as Error }
            },
            .cold("Single.flatMap", .exactly(1)) { Single<Int, TestFailure>(1).flatMap { Single($0 + 1) } },
            .cold("Single.replaceError", .exactly(1)) {
                Single<Int, TestFailure>(error: TestFailure()).replaceError(with: 1)
            },
            .cold("asSingle", .exactly(1)) { Just(1).asSingle() },
            // Nothing is pulled before the first request; the second value then fails the single.
            .cold("asSingle (violated)", .exactly(0), pulls: true) { hundred.publisher.asSingle() },
            .cold("Single.asMaybe", .exactly(1)) { Single<Int, TestFailure>(1).asMaybe() },
            .cold("Single.asCompletable", .exactly(0)) { Single<Int, TestFailure>(1).asCompletable() },
            .cold("Maybe(value)", .exactly(1)) { Maybe<Int, TestFailure>(1) },
            .cold("Maybe (empty), another thread", .exactly(0)) {
                Maybe<Int, TestFailure> { promise in queue.async { promise(.success(nil)) } }
            },
            .cold("Maybe.create", .exactly(1)) {
                Maybe<Int, TestFailure>.create { promise in
                    promise(.success(1))
                    return AnyCancellable {}
                }
            },
            .cold("Maybe.map", .exactly(1)) { Maybe<Int, TestFailure>(1).map { $0 + 1 } },
            .cold("Maybe.flatMap", .exactly(1)) { Maybe<Int, TestFailure>(1).flatMap { Maybe($0 + 1) } },
            .cold("Maybe.replaceEmpty", .exactly(1)) {
                Maybe<Int, TestFailure> { $0(.success(nil)) }.replaceEmpty(with: 1)
            },
            .cold("asMaybe", .exactly(0)) { Empty<Int, Never>().asMaybe() },
            .cold("Completable(promise), another thread", .exactly(0)) {
                Completable<TestFailure> { promise in queue.async { promise(.success(())) } }
            },
            .cold("Completable.create", .exactly(0)) {
                Completable<TestFailure>.create { promise in
                    promise(.failure(TestFailure()))
                    return AnyCancellable {}
                }
            },
            .cold("Completable.andThen(Single)", .exactly(1)) {
                Completable<TestFailure> { $0(.success(())) }.andThen(Single(1))
            },
            .cold("Completable.andThen(Maybe)", .exactly(1)) {
                Completable<TestFailure> { $0(.success(())) }.andThen(Maybe(1))
            },
            .cold("asCompletable", .exactly(0)) { Empty<Int, Never>().asCompletable() },
            .cold("Completable.andThen(Completable)", .exactly(0)) {
                Completable<TestFailure> { $0(.success(())) }.andThen(Completable { $0(.success(())) })
            },
            .cold("Completable.mapError", .exactly(0)) {
                Completable<TestFailure>(error: TestFailure()).mapError { $0 as Error }
            },
            .cold("Maybe.mapError", .exactly(1)) { Maybe<Int, TestFailure>(1).mapError { $0 as Error } },
            .cold("Maybe.asCompletable", .exactly(0)) { Maybe<Int, TestFailure>(1).asCompletable() },
            .cold("asSingle(violation:)", .exactly(1)) {
                Just(1).setFailureType(to: TestFailure.self).asSingle(violation: { _ in TestFailure(code: 2) })
            },
            .cold("asMaybe(violation:)", .exactly(1)) {
                Just(1).setFailureType(to: TestFailure.self).asMaybe(violation: { _ in TestFailure(code: 2) })
            },
            .cold("asCompletable(violation:)", .exactly(0)) {
                Empty<Int, TestFailure>().asCompletable(violation: { _ in TestFailure(code: 2) })
            },
        ]
    }

    // Operators that take a scheduler: a private serial DispatchQueue (the verifier waits for asynchronous
    // deliveries with its own timeouts) or ImmediateScheduler.
    static var timed: [VerifiedPublisher] {
        [
            .cold("retry(_:backoff:) on a DispatchQueue", .exactly(300)) {
                failing.retry(2, backoff: .constant(0.001), scheduler: queue)
            },
            .cold("delaySubscription (DispatchQueue)", .exactly(100)) {
                hundred.publisher.delaySubscription(for: oneMillisecond, scheduler: queue)
            },
            .cold("delaySubscription (ImmediateScheduler)", .exactly(100)) {
                hundred.publisher.delaySubscription(for: .zero, scheduler: ImmediateScheduler.shared)
            },
            .cold("timeout(fallback:) (reached)", .exactly(100)) {
                Empty<Int, Never>(completeImmediately: false).timeout(
                    oneMillisecond, scheduler: queue, fallback: hundred.publisher)
            },
            .cold("timeout(fallback:) (not reached)", .exactly(100)) {
                hundred.publisher.timeout(.seconds(60), scheduler: queue, fallback: Just(-1))
            },
            .cold("prefix(for:) (not reached)", .exactly(100)) {
                hundred.publisher.prefix(for: .seconds(60), scheduler: queue)
            },
            .cold("prefix(for:) (reached)", .exactly(0)) {
                Empty<Int, Never>(completeImmediately: false).prefix(for: oneMillisecond, scheduler: queue)
            },
            .hot("delaySubscription over a subject") { $0.delaySubscription(for: oneMillisecond, scheduler: queue) },
            .hot("timeout(fallback:) over a subject") {
                $0.timeout(.seconds(60), scheduler: queue, fallback: Just(-1).setFailureType(to: TestFailure.self))
            },
            .hot("prefix(for:) over a subject") { $0.prefix(for: .seconds(60), scheduler: queue) },
        ]
    }

    // Drivers deliver on the main queue (see testEveryDriverKeepsTheContract).
    static var drivers: [VerifiedPublisher] {
        [
            .cold("Driver.just", .exactly(1)) { Driver.just(1) },
            .cold("Driver.empty", .exactly(0)) { Driver<Int>.empty() },
            // A driver shares its source with replay of the newest value: values of a synchronous source that find no
            // demand are replaced by newer ones, so only the last one is sure to arrive.
            .cold("asDriver(onErrorJustReturn:)", .atLeast(1)) { failing.asDriver(onErrorJustReturn: -1) },
            .cold("asDriver(onErrorDriveWith:)", .atLeast(1)) { failing.asDriver(onErrorDriveWith: .just(-1)) },
            .cold("asDriver(onErrorRecover:)", .atLeast(1)) { failing.asDriver(onErrorRecover: { _ in .just(-1) }) },
            .cold("asDriver()", .atLeast(1)) { hundred.publisher.asDriver() },
            .hot("Driver over a subject") { $0.replaceError(with: -1).asDriver() },
        ]
    }
}
