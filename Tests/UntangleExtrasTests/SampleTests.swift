import Foundation
import Untangle
import UntangleExtras
import UntangleTesting
import XCTest

final class SampleTests: XCTestCase {
    func testEmitsTheLatestNewValueOnEachTick() {
        let source = ManualPublisher<Int, TestError>(recordsSubscriptions: true)
        let ticks = ManualPublisher<Void, TestError>(recordsSubscriptions: true)
        let recorder = Recorder<Int, TestError>()
        source.sample(ticks).subscribe(recorder)
        ticks.send(())
        source.send(1)
        source.send(2)
        ticks.send(())
        ticks.send(())  // nothing new since the last sample
        source.send(3)
        ticks.send(())
        XCTAssertEqual(recorder.events, [.subscription("Sample"), .value(2), .value(3)])
        XCTAssertEqual(source.history, [.subscribed, .request(.unlimited)])
        XCTAssertEqual(ticks.history, [.subscribed, .request(.unlimited)])
    }

    func testUpstreamFinishingEndsAtTheNextTickWithThePendingValue() {
        let source = ManualPublisher<Int, TestError>(recordsSubscriptions: true)
        let ticks = ManualPublisher<Void, TestError>(recordsSubscriptions: true)
        let recorder = Recorder<Int, TestError>()
        source.sample(ticks).subscribe(recorder)
        source.send(1)
        source.finish()
        XCTAssertEqual(recorder.events, [.subscription("Sample")])
        ticks.send(())
        XCTAssertEqual(recorder.events, [.subscription("Sample"), .value(1), .completion(.finished)])
        XCTAssertEqual(ticks.history, [.subscribed, .request(.unlimited), .cancel])
    }

    func testSamplerFinishingIsALastTick() {
        let source = ManualPublisher<Int, TestError>(recordsSubscriptions: true)
        let ticks = ManualPublisher<Void, TestError>(recordsSubscriptions: true)
        let recorder = Recorder<Int, TestError>()
        source.sample(ticks).subscribe(recorder)
        source.send(4)
        ticks.finish()
        XCTAssertEqual(recorder.events, [.subscription("Sample"), .value(4), .completion(.finished)])
        XCTAssertEqual(source.history, [.subscribed, .request(.unlimited), .cancel])
    }

    func testFailuresOfEitherFailAndCancelTheOther() {
        let source = ManualPublisher<Int, TestError>(recordsSubscriptions: true)
        let ticks = ManualPublisher<Void, TestError>(recordsSubscriptions: true)
        let recorder = Recorder<Int, TestError>()
        source.sample(ticks).subscribe(recorder)
        ticks.send(completion: .failure(TestError(2)))
        XCTAssertEqual(recorder.events, [.subscription("Sample"), .completion(.failure(TestError(2)))])
        XCTAssertEqual(source.history, [.subscribed, .request(.unlimited), .cancel])

        let source2 = ManualPublisher<Int, TestError>(recordsSubscriptions: true)
        let ticks2 = ManualPublisher<Void, TestError>(recordsSubscriptions: true)
        let recorder2 = Recorder<Int, TestError>()
        source2.sample(ticks2).subscribe(recorder2)
        source2.send(completion: .failure(TestError(3)))
        XCTAssertEqual(recorder2.events, [.subscription("Sample"), .completion(.failure(TestError(3)))])
        XCTAssertEqual(ticks2.history, [.subscribed, .request(.unlimited), .cancel])
    }

    func testASampleWithoutDemandWaitsAndIsReplacedByANewerOne() {
        let source = ManualPublisher<Int, TestError>(recordsSubscriptions: true)
        let ticks = ManualPublisher<Void, TestError>(recordsSubscriptions: true)
        let recorder = Recorder<Int, TestError>(initialDemand: nil)
        source.sample(ticks).subscribe(recorder)
        source.send(1)
        ticks.send(())
        source.send(2)
        ticks.send(())
        XCTAssertEqual(recorder.events, [.subscription("Sample")])
        recorder.request(.max(1))
        XCTAssertEqual(recorder.events, [.subscription("Sample"), .value(2)])
    }

    func testATickFromInsideTheDownstreamsCallIsDeliveredWhenTheCallReturns() {
        let source = ManualPublisher<Int, TestError>(recordsSubscriptions: true)
        let ticks = ManualPublisher<Void, TestError>(recordsSubscriptions: true)
        let recorder = Recorder<Int, TestError>(onValue: { _, value in
            if value == 1 {
                source.send(2)
                ticks.send(())  // never nested: 2 follows the call that delivers 1
            }
            return .none
        })
        source.sample(ticks).subscribe(recorder)
        source.send(1)
        ticks.send(())
        XCTAssertEqual(recorder.events, [.subscription("Sample"), .value(1), .value(2)])
        XCTAssertEqual(recorder.maximumOverlap, 1)
    }

    func testDemandReturnedFromASampledValueIsCounted() {
        let source = ManualPublisher<Int, TestError>(recordsSubscriptions: true)
        let ticks = ManualPublisher<Void, TestError>(recordsSubscriptions: true)
        let recorder = Recorder<Int, TestError>(
            initialDemand: .max(1), onValue: { _, value in value == 1 ? .max(1) : .none })
        source.sample(ticks).subscribe(recorder)
        for value in 1...3 {
            source.send(value)
            ticks.send(())
        }
        XCTAssertEqual(recorder.events, [.subscription("Sample"), .value(1), .value(2)], "1 returned one more")
        recorder.request(.max(1))
        XCTAssertEqual(recorder.events, [.subscription("Sample"), .value(1), .value(2), .value(3)], "3 waited")
        XCTAssertEqual(
            source.history, [.subscribed, .request(.unlimited)], "the sample asks its upstream nothing more")
    }

    func testCancelCancelsBothAndReleases() {
        let source = ManualPublisher<Int, TestError>(recordsSubscriptions: true)
        let ticks = ManualPublisher<Void, TestError>(recordsSubscriptions: true)
        weak var weakRecorder: Recorder<Int, TestError>?
        do {
            let recorder = Recorder<Int, TestError>()
            weakRecorder = recorder
            source.sample(ticks).subscribe(recorder)
            recorder.cancel()
            recorder.cancel()
        }
        XCTAssertEqual(source.history, [.subscribed, .request(.unlimited), .cancel])
        XCTAssertEqual(ticks.history, [.subscribed, .request(.unlimited), .cancel])
        XCTAssertNil(weakRecorder)
    }

    // ReactiveX/RxSwift 9de36a77 (issue 573): a finished sequence's subscription, kept by its subscriber, still held
    // the operator and its sources until it was disposed. Once sample has finished, the subscription its subscriber
    // keeps holds neither the source nor the sampler.
    func testAFinishedSampleKeepsNeitherPublisherAlive() {
        weak var weakSource: ManualPublisher<Int, TestError>?
        weak var weakSampler: ManualPublisher<Void, TestError>?
        let recorder = Recorder<Int, TestError>()
        do {
            let source = ManualPublisher<Int, TestError>(recordsSubscriptions: true)
            let sampler = ManualPublisher<Void, TestError>(recordsSubscriptions: true)
            weakSource = source
            weakSampler = sampler
            source.sample(sampler).subscribe(recorder)
            source.send(1)
            source.finish()
            sampler.send(())
            XCTAssertEqual(sampler.history.last, .cancel)
        }
        XCTAssertEqual(recorder.events, [.subscription("Sample"), .value(1), .completion(.finished)])
        XCTAssertNotNil(recorder.subscription, "the subscriber keeps its subscription")
        XCTAssertNil(weakSource)
        XCTAssertNil(weakSampler)
    }

    func testVirtualTimeTicks() {
        let scheduler = TestScheduler()
        let source = PassthroughSubject<Int, Never>()
        let ticks = PassthroughSubject<Void, Never>()
        var values: [Int] = []
        let cancellable = source.sample(ticks).sink { values.append($0) }
        let timer = scheduler.schedule(after: scheduler.now.advanced(by: .seconds(1)), interval: .seconds(1)) {
            ticks.send(())
        }
        source.send(1)
        source.send(2)
        scheduler.advance(by: .seconds(1))
        source.send(3)
        scheduler.advance(by: .seconds(2))
        XCTAssertEqual(values, [2, 3])
        timer.cancel()
        withExtendedLifetime(cancellable) {}
    }
}

final class SampleConcurrencyTests: XCTestCase {
    func testSourceAndSamplerOnDifferentThreadsDeliverSeriallyInOrder() {
        let source = PassthroughSubject<Int, Never>()
        let ticks = PassthroughSubject<Void, Never>()
        let detector = OverlapDetector()
        let recorder = Recorder<Int, Never>(onValue: { _, _ in detector.around { .none } })
        source.sample(ticks).subscribe(recorder)
        runConcurrently(threads: 3) { thread in
            for i in 0..<2_000 {
                if thread == 0 { source.send(i) } else { ticks.send(()) }
            }
        }
        let values = recorder.values
        XCTAssertEqual(values, values.sorted(), "samples never go back in time")
        XCTAssertEqual(Set(values).count, values.count, "each value is sampled at most once")
        XCTAssertEqual(detector.overlaps, 0)
    }

    func testLockInversionWithUserLockHeldWhileSending() {
        let source = PassthroughSubject<Int, Never>()
        let ticks = PassthroughSubject<Void, Never>()
        let userLock = NSRecursiveLock()
        let count = Counter()
        let cancellable = source.sample(ticks).sink { _ in
            userLock.lock()
            count.add(1)
            userLock.unlock()
        }
        runConcurrently(threads: 2, timeout: 60) { thread in
            for i in 0..<1_000 {
                userLock.lock()
                if thread == 0 { source.send(i) } else { ticks.send(()) }
                userLock.unlock()
            }
        }
        XCTAssertLessThanOrEqual(count.value, 1_000)
        withExtendedLifetime(cancellable) {}
    }
}
