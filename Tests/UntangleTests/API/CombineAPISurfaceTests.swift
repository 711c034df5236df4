import Foundation
import Untangle
import XCTest

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

// Compile-time checks of Combine's public API surface: each line names the type Combine's overload resolution gives
// (`let x: T = expression` fails to compile when Untangle picks another overload), then the value is run and its
// output asserted. The list of symbols and the check that Untangle declares each one are in
// Scripts/combine-api/ (apple-combine-api.txt, check-api-parity.py); this file covers what a name cannot show:
// which overload a call resolves to.

private enum LoadError: Error, Equatable {
    case failed
}

private final class Model: ObservableObject {
    @Published var text = ""
    @Published var count = 0
}

/// The values and completion a publisher delivers synchronously to an unlimited sink.
private func deliveries<P: Publisher>(_ publisher: P) -> (
    values: [P.Output], completion: Subscribers.Completion<P.Failure>?
) {
    var values: [P.Output] = []
    var completion: Subscribers.Completion<P.Failure>?
    let cancellable = publisher.sink(receiveCompletion: { completion = $0 }, receiveValue: { values.append($0) })
    cancellable.cancel()
    return (values, completion)
}

final class CombineAPISurfaceTests: XCTestCase {
    // MARK: merge(with:) with the receiver's own type (the gap this audit found)

    func testMergeWithSameTypeResolvesToMergeMany() {
        let merged: Publishers.MergeMany<Just<Int>> = Just(1).merge(with: Just(2))
        XCTAssertEqual(deliveries(merged).values, [1, 2])
        let mixed: Publishers.Merge<Just<Int>, Publishers.Sequence<[Int], Never>> = Just(1).merge(
            with: [2, 3].publisher)
        XCTAssertEqual(deliveries(mixed).values, [1, 2, 3])
        let three: Publishers.Merge3<Just<Int>, Just<Int>, Just<Int>> = Just(1).merge(with: Just(2), Just(3))
        XCTAssertEqual(deliveries(three).values, [1, 2, 3])
    }

    // MARK: flatMap's setFailureType variants

    func testFlatMapFromNeverIntoAFailingInnerSetsTheUpstreamsFailure() {
        let flattened: Publishers.FlatMap<Fail<Int, LoadError>, Publishers.SetFailureType<Just<Int>, LoadError>> =
            Just(1).flatMap(maxPublishers: .unlimited) { _ in Fail<Int, LoadError>(error: .failed) }
        let result = deliveries(flattened)
        XCTAssertEqual(result.values, [])
        XCTAssertEqual(result.completion, .failure(.failed))
    }

    func testFlatMapFromAFailingUpstreamIntoANeverInnerSetsTheInnersFailure() {
        let upstream = [1, 2].publisher.setFailureType(to: LoadError.self)
        let flattened:
            Publishers.FlatMap<Publishers.SetFailureType<Just<Int>, LoadError>, Publishers.Sequence<[Int], LoadError>> =
                upstream.flatMap { Just($0 * 10) }
        let result = deliveries(flattened)
        XCTAssertEqual(result.values, [10, 20])
        XCTAssertEqual(result.completion, .finished)
    }

    func testFlatMapWithEqualFailuresKeepsBothPublishers() {
        let flattened: Publishers.FlatMap<Just<Int>, Publishers.Sequence<[Int], Never>> =
            [1, 2].publisher.flatMap(maxPublishers: .max(1)) { Just($0 + 1) }
        XCTAssertEqual(deliveries(flattened).values, [2, 3])
    }

    // MARK: switchToLatest's Never variants

    func testSwitchToLatestFromNeverIntoFailingInnersTakesTheInnersFailure() {
        let outer = PassthroughSubject<AnyPublisher<Int, LoadError>, Never>()
        let switched:
            Publishers.SwitchToLatest<
                AnyPublisher<Int, LoadError>,
                Publishers.SetFailureType<PassthroughSubject<AnyPublisher<Int, LoadError>, Never>, LoadError>
            > = outer.switchToLatest()
        var values: [Int] = []
        var completion: Subscribers.Completion<LoadError>?
        let cancellable = switched.sink(receiveCompletion: { completion = $0 }, receiveValue: { values.append($0) })
        outer.send(Just(1).setFailureType(to: LoadError.self).eraseToAnyPublisher())
        outer.send(Fail(error: LoadError.failed).eraseToAnyPublisher())
        XCTAssertEqual(values, [1])
        XCTAssertEqual(completion, .failure(.failed))
        cancellable.cancel()
    }

    func testSwitchToLatestFromAFailingOuterIntoNeverInnersTakesTheOutersFailure() {
        let outer = PassthroughSubject<Just<Int>, LoadError>()
        let switched:
            Publishers.SwitchToLatest<
                Publishers.SetFailureType<Just<Int>, LoadError>,
                Publishers.Map<
                    PassthroughSubject<Just<Int>, LoadError>, Publishers.SetFailureType<Just<Int>, LoadError>
                >
            > = outer.switchToLatest()
        var values: [Int] = []
        var completion: Subscribers.Completion<LoadError>?
        let cancellable = switched.sink(receiveCompletion: { completion = $0 }, receiveValue: { values.append($0) })
        outer.send(Just(4))
        outer.send(completion: .failure(.failed))
        XCTAssertEqual(values, [4])
        XCTAssertEqual(completion, .failure(.failed))
        cancellable.cancel()
    }

    func testSwitchToLatestWithNeverOnBothSides() {
        let switched: Publishers.SwitchToLatest<Just<Int>, Publishers.Sequence<[Just<Int>], Never>> =
            [Just(1), Just(2)].publisher.switchToLatest()
        XCTAssertEqual(deliveries(switched).values, [1, 2])
    }

    // MARK: Subjects, @Published, assign

    func testAssignToPublishedAndSubjectSendForVoid() {
        let model = Model()
        var texts: [String] = []
        let watching = model.$text.sink { texts.append($0) }
        ["a", "b"].publisher.assign(to: &model.$text)
        XCTAssertEqual(model.text, "b")
        XCTAssertEqual(texts, ["", "a", "b"])
        watching.cancel()

        let ticks = PassthroughSubject<Void, Never>()
        var count = 0
        let counting = ticks.sink { count += 1 }
        ticks.send()
        ticks.send()
        XCTAssertEqual(count, 2)
        counting.cancel()

        let current = CurrentValueSubject<Void, Never>(())
        var currentCount = 0
        let currentCounting = current.sink { currentCount += 1 }
        current.send()
        XCTAssertEqual(currentCount, 2)
        currentCounting.cancel()
    }

    func testObjectWillChangeIsTheDefaultPublisher() {
        let model = Model()
        let publisher: ObservableObjectPublisher = model.objectWillChange
        var changes = 0
        let cancellable = publisher.sink { changes += 1 }
        model.count = 1
        model.text = "x"
        XCTAssertEqual(changes, 2)
        cancellable.cancel()
    }

    // MARK: Publishers.Sequence's own overloads

    func testSequenceOperatorsStaySequencesResultsAndOptionals() {
        let numbers = [3, 1, 2].publisher
        let mapped: Publishers.Sequence<[Int], Never> = numbers.map { $0 * 2 }
        XCTAssertEqual(mapped.sequence, [6, 2, 4])
        let filtered: Publishers.Sequence<[Int], Never> = numbers.filter { $0 > 1 }
        XCTAssertEqual(filtered.sequence, [3, 2])
        let counted: Just<Int> = numbers.count()
        XCTAssertEqual(counted.output, 3)
        let failingCount: Result<Int, LoadError>.Publisher = numbers.setFailureType(to: LoadError.self).count()
        XCTAssertEqual(failingCount.result, .success(3))
        let smallest: Optional<Int>.Publisher = numbers.min()
        XCTAssertEqual(smallest.output, 1)
        let collected: Result<[Int], Never>.Publisher = numbers.collect()
        XCTAssertEqual(collected.result, .success([3, 1, 2]))
        let reduced: Result<Int, Never>.Publisher = numbers.reduce(0, +)
        XCTAssertEqual(reduced.result, .success(6))
        let dropped: Publishers.Sequence<DropFirstSequence<[Int]>, Never> = numbers.dropFirst()
        XCTAssertEqual(Array(dropped.sequence), [1, 2])
        let prefixed: Publishers.Sequence<PrefixSequence<[Int]>, Never> = numbers.prefix(2)
        XCTAssertEqual(Array(prefixed.sequence), [3, 1])
        let appended: Publishers.Sequence<[Int], Never> = numbers.append(4, 5)
        XCTAssertEqual(appended.sequence, [3, 1, 2, 4, 5])
        let prepended: Publishers.Sequence<[Int], Never> = numbers.prepend([0].publisher)
        XCTAssertEqual(prepended.sequence, [0, 3, 1, 2])
        let ignored: Empty<Int, Never> = numbers.ignoreOutput()
        XCTAssertEqual(deliveries(ignored).completion, .finished)
        let retyped: Publishers.Sequence<[Int], LoadError> = numbers.setFailureType(to: LoadError.self)
        XCTAssertEqual(retyped.sequence, [3, 1, 2])
    }

    // MARK: Just, Optional.Publisher and Result.Publisher overloads

    func testJustOperatorsKeepTheirSynchronousTypes() {
        let mapped: Just<String> = Just(2).map { "\($0)" }
        XCTAssertEqual(mapped.output, "2")
        let throwing: Result<Int, Error>.Publisher = Just(2).tryMap { $0 + 1 }
        XCTAssertEqual(try throwing.result.get(), 3)
        let filtered: Optional<Int>.Publisher = Just(2).filter { $0 > 5 }
        XCTAssertNil(filtered.output)
        let collected: Just<[Int]> = Just(2).collect()
        XCTAssertEqual(collected.output, [2])
        let retyped: Result<Int, LoadError>.Publisher = Just(2).setFailureType(to: LoadError.self)
        XCTAssertEqual(retyped.result, .success(2))
        let appended: Publishers.Sequence<[Int], Never> = Just(1).append(2, 3)
        XCTAssertEqual(appended.sequence, [1, 2, 3])
        let contains: Just<Bool> = Just(2).contains(2)
        XCTAssertTrue(contains.output)
        let emptied: Empty<Int, Never> = Just(2).ignoreOutput()
        XCTAssertEqual(deliveries(emptied).values, [])

        let optional: Optional<Int>.Publisher = Optional(4).publisher.map { $0 * 2 }
        XCTAssertEqual(optional.output, 8)
        let replaced: Just<Int> = Optional<Int>.none.publisher.replaceEmpty(with: 9)
        XCTAssertEqual(replaced.output, 9)

        let result: Result<Int, LoadError>.Publisher = Result<Int, LoadError>.success(2).publisher.map { $0 + 1 }
        XCTAssertEqual(result.result, .success(3))
        let recovered: Result<Int, Never>.Publisher = Result<Int, LoadError>.failure(.failed).publisher
            .replaceError(with: 0)
        XCTAssertEqual(recovered.result, .success(0))
    }

    // MARK: Demand, cancellation, identifiers, recordings

    func testDemandArithmeticAndComparisonsWithIntegers() {
        let demand: Subscribers.Demand = .max(2) + 1
        XCTAssertEqual(demand, .max(3))
        XCTAssertTrue(demand == 3)
        XCTAssertTrue(3 == demand)
        XCTAssertTrue(demand != 4)
        XCTAssertTrue(2 < demand)
        XCTAssertTrue(demand <= .unlimited)
        XCTAssertEqual(Subscribers.Demand.unlimited - 5, .unlimited)
        XCTAssertEqual(demand * 2, .max(6))
        var mutable = Subscribers.Demand.none
        mutable += 2
        mutable -= .max(1)
        XCTAssertEqual(mutable.max, 1)
        XCTAssertEqual(Subscribers.Demand.max(1).description, "max(1)")
    }

    func testStoreInBothCollections() {
        var set = Set<AnyCancellable>()
        var array: [AnyCancellable] = []
        var cancels = 0
        AnyCancellable { cancels += 1 }.store(in: &set)
        AnyCancellable { cancels += 1 }.store(in: &array)
        XCTAssertEqual(set.count, 1)
        XCTAssertEqual(array.count, 1)
        set.removeAll()
        array.removeAll()
        XCTAssertEqual(cancels, 2)
    }

    func testIdentifiersAndRecordings() throws {
        let object = NSObject()
        XCTAssertEqual(CombineIdentifier(object), CombineIdentifier(object))
        XCTAssertNotEqual(CombineIdentifier(), CombineIdentifier())

        var recording = Record<Int, LoadError>.Recording()
        recording.receive(1)
        recording.receive(completion: .failure(.failed))
        let record = Record(recording: recording)
        let result = deliveries(record)
        XCTAssertEqual(result.values, [1])
        XCTAssertEqual(result.completion, .failure(.failed))

        let encoded = try JSONEncoder().encode(Record<Int, Never>(output: [1, 2], completion: .finished))
        let decoded = try JSONDecoder().decode(Record<Int, Never>.self, from: encoded)
        XCTAssertEqual(decoded.recording.output, [1, 2])
    }

    func testFutureValueIsAwaitable() async throws {
        let never = Future<Int, Never> { promise in promise(.success(5)) }
        let value = await never.value
        XCTAssertEqual(value, 5)
        let failing = Future<Int, LoadError> { promise in promise(.failure(.failed)) }
        do {
            _ = try await failing.value
            XCTFail("the future failed: its value throws")
        } catch let error as LoadError {
            XCTAssertEqual(error, .failed)
        }
    }

    // MARK: Default arguments (a call written without them must compile as in Combine)

    func testOperatorsCalledWithTheirDefaultArguments() {
        let immediate = ImmediateScheduler.shared
        let subject = PassthroughSubject<Int, Never>()
        var printed = ""
        let timed =
            subject
            .dropFirst()
            .delay(for: .seconds(1), scheduler: immediate)
            .receive(on: immediate)
            .subscribe(on: immediate)
            .measureInterval(using: immediate)
            .map { _ in 1 }
            .flatMap { Just($0) }
            .handleEvents()
            .breakpoint()
            .assertNoFailure()
            .print()
        XCTAssertEqual(printed, "")
        var counts: [Int] = []
        let cancellable = timed.sink { counts.append($0) }
        [1, 2, 3].forEach(subject.send)
        XCTAssertEqual(counts, [1, 1], "dropFirst() drops one; each timed stage runs at once on ImmediateScheduler")
        cancellable.cancel()
        let debounced = subject.debounce(for: .seconds(1), scheduler: immediate)
        XCTAssertNil(debounced.options)
        let timedOut = subject.timeout(.seconds(1), scheduler: immediate)
        XCTAssertNil(timedOut.options)
        XCTAssertNil(timedOut.customError)
        let grouped = subject.collect(.byTimeOrCount(DispatchQueue.main, .seconds(1), 2))
        XCTAssertNil(grouped.options)

        let logged = [1].publisher.print("p", to: nil)
        XCTAssertNil(logged.stream)
        XCTAssertEqual(logged.prefix, "p")
        printed = "\(Empty<Int, Never>().completeImmediately)"
        XCTAssertEqual(printed, "true")
        let typed = Empty(outputType: Int.self, failureType: LoadError.self)
        XCTAssertTrue(typed.completeImmediately)
        let failing = Fail(outputType: Int.self, failure: LoadError.failed)
        XCTAssertEqual(failing.error, .failed)
        let options = DispatchQueue.SchedulerOptions()
        XCTAssertEqual(options.qos, .unspecified)
        XCTAssertNil(options.group)
        let recorded = Record<Int, Never> { recording in
            recording.receive(1)
            recording.receive(completion: .finished)
        }
        XCTAssertEqual(deliveries(recorded).values, [1])
        let erased = AnySubscriber<Int, Never>()
        XCTAssertEqual(erased.receive(1), .none)
        let ranged = [1, 2, 3, 4].publisher.setFailureType(to: LoadError.self).output(in: ..<2)
        XCTAssertEqual(deliveries(ranged).values, [1, 2])
        let center = NotificationCenter()
        var notified = 0
        let observing = center.publisher(for: Notification.Name("API")).sink { _ in notified += 1 }
        center.post(name: Notification.Name("API"), object: nil)
        XCTAssertEqual(notified, 1)
        observing.cancel()
        let timer = Timer.publish(every: 60, on: .main, in: .common)
        XCTAssertNil(timer.tolerance)
        XCTAssertEqual(timer.interval, 60)
    }

    // MARK: Primary associated types, schedulers, Foundation types, connectables

    func testExistentialsAndOpaqueTypesWithPrimaryAssociatedTypes() {
        func numbers() -> some Publisher<Int, Never> { [1, 2].publisher }
        let subject: any Subject<Int, Never> = PassthroughSubject<Int, Never>()
        let subscriber: any Subscriber<Int, Never> = AnySubscriber<Int, Never>()
        let scheduler: any Scheduler<ImmediateScheduler.SchedulerTimeType> = ImmediateScheduler.shared
        let connectable: any ConnectablePublisher<Int, Never> = [1].publisher.makeConnectable()
        XCTAssertEqual(deliveries(numbers()).values, [1, 2])
        XCTAssertTrue(subject is PassthroughSubject<Int, Never>)
        XCTAssertEqual(subscriber.combineIdentifier, subscriber.combineIdentifier)
        var ran = false
        scheduler.schedule { ran = true }
        XCTAssertTrue(ran)
        XCTAssertTrue(connectable is Publishers.MakeConnectable<Publishers.Sequence<[Int], Never>>)
    }

    func testSchedulerTimeTypesAndStrides() {
        let dispatchStride: DispatchQueue.SchedulerTimeType.Stride = 0.5
        XCTAssertEqual(dispatchStride, .milliseconds(500))
        XCTAssertEqual(DispatchQueue.SchedulerTimeType.Stride(.seconds(2)), .seconds(2))
        let loopStride: RunLoop.SchedulerTimeType.Stride = .seconds(1.5)
        XCTAssertEqual(loopStride.timeInterval, 1.5)
        let queueStride = OperationQueue.SchedulerTimeType.Stride(0.25)
        XCTAssertEqual(queueStride.magnitude, 0.25)
        let date = Date(timeIntervalSince1970: 10)
        let later = RunLoop.SchedulerTimeType(date).advanced(by: .seconds(5))
        XCTAssertEqual(later.date, Date(timeIntervalSince1970: 15))
        XCTAssertEqual(
            OperationQueue.SchedulerTimeType(date).distance(to: OperationQueue.SchedulerTimeType(later.date)),
            .seconds(5))
        let immediate: ImmediateScheduler.SchedulerTimeType.Stride = 3
        XCTAssertEqual(immediate.magnitude, 3)
    }

    func testConnectablesSubjectsAndCodersFromOperators() throws {
        let subject = PassthroughSubject<Int, Never>()
        let multicast: Publishers.Multicast<Publishers.Sequence<[Int], Never>, PassthroughSubject<Int, Never>> =
            [1, 2].publisher.multicast(subject: subject)
        var values: [Int] = []
        let listening = multicast.sink { values.append($0) }
        let connection: Cancellable = multicast.connect()
        XCTAssertEqual(values, [1, 2])
        connection.cancel()
        listening.cancel()

        let current = CurrentValueSubject<Int, Never>(0)
        let piping: AnyCancellable = [5, 6].publisher.subscribe(current)
        XCTAssertEqual(current.value, 6)
        current.value = 7
        XCTAssertEqual(current.value, 7)
        piping.cancel()

        struct Point: Codable, Equatable {
            let x: Int
        }
        let roundTrip: Publishers.Decode<Publishers.Encode<Just<Point>, JSONEncoder>, Point, JSONDecoder> =
            Just(Point(x: 3)).encode(encoder: JSONEncoder()).decode(type: Point.self, decoder: JSONDecoder())
        let decoded = deliveries(roundTrip)
        XCTAssertEqual(decoded.values, [Point(x: 3)])
        guard case .finished = decoded.completion else { return XCTFail("the round trip finishes") }
        let plist = deliveries(Just(Point(x: 4)).encode(encoder: PropertyListEncoder()))
        XCTAssertEqual(
            try PropertyListDecoder().decode(Point.self, from: try XCTUnwrap(plist.values.first)), Point(x: 4))
    }

    // MARK: Sendable conformances Apple's documentation lists

    /// Regression: `URLSession.DataTaskPublisher` and `DispatchQueue.SchedulerOptions` were not `Sendable`, so a
    /// Swift 6 program that hands them to another task (which compiles against Combine) did not compile.
    func testDocumentedSendableTypesCrossTasks() async throws {
        func sendable<T: Sendable>(_ value: T) -> T { value }
        let url = try XCTUnwrap(URL(string: "http://127.0.0.1:9/api"))
        let publisher = sendable(URLSession.shared.dataTaskPublisher(for: url))
        let options = sendable(DispatchQueue.SchedulerOptions(qos: .utility, flags: .barrier))
        let seen = await Task.detached {
            (publisher.request.url, options.qos == .utility, options.flags.contains(.barrier))
        }.value
        XCTAssertEqual(seen.0, url)
        XCTAssertTrue(seen.1)
        XCTAssertTrue(seen.2)
        XCTAssertEqual(sendable(Subscribers.Demand.max(2)), .max(2))
        XCTAssertEqual(sendable(Subscribers.Completion<Never>.finished), .finished)
        XCTAssertEqual(sendable(RunLoop.SchedulerTimeType.Stride.seconds(2)).timeInterval, 2)
    }

}
