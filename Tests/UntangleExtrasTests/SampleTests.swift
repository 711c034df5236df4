import Foundation
import Untangle
import UntangleExtras
import UntangleTesting
import XCTest

final class SampleTests: XCTestCase {
    func testEmitsTheLatestNewValueOnEachTick() {
        let source = OpSource<Int, OpError>()
        let ticks = OpSource<Void, OpError>()
        let recorder = OpRecorder<Int, OpError>()
        source.sample(ticks).subscribe(recorder)
        ticks.send(())
        source.send(1)
        source.send(2)
        ticks.send(())
        ticks.send(())  // nothing new since the last sample
        source.send(3)
        ticks.send(())
        XCTAssertEqual(recorder.events, [.subscription, .value(2), .value(3)])
        XCTAssertEqual(source.history, [.subscribed, .request(.unlimited)])
        XCTAssertEqual(ticks.history, [.subscribed, .request(.unlimited)])
    }

    func testUpstreamFinishingEndsAtTheNextTickWithThePendingValue() {
        let source = OpSource<Int, OpError>()
        let ticks = OpSource<Void, OpError>()
        let recorder = OpRecorder<Int, OpError>()
        source.sample(ticks).subscribe(recorder)
        source.send(1)
        source.finish()
        XCTAssertEqual(recorder.events, [.subscription])
        ticks.send(())
        XCTAssertEqual(recorder.events, [.subscription, .value(1), .finished])
        XCTAssertEqual(ticks.history, [.subscribed, .request(.unlimited), .cancel])
    }

    func testSamplerFinishingIsALastTick() {
        let source = OpSource<Int, OpError>()
        let ticks = OpSource<Void, OpError>()
        let recorder = OpRecorder<Int, OpError>()
        source.sample(ticks).subscribe(recorder)
        source.send(4)
        ticks.finish()
        XCTAssertEqual(recorder.events, [.subscription, .value(4), .finished])
        XCTAssertEqual(source.history, [.subscribed, .request(.unlimited), .cancel])
    }

    func testFailuresOfEitherFailAndCancelTheOther() {
        let source = OpSource<Int, OpError>()
        let ticks = OpSource<Void, OpError>()
        let recorder = OpRecorder<Int, OpError>()
        source.sample(ticks).subscribe(recorder)
        ticks.send(completion: .failure(OpError(2)))
        XCTAssertEqual(recorder.events, [.subscription, .failure(OpError(2))])
        XCTAssertEqual(source.history, [.subscribed, .request(.unlimited), .cancel])

        let source2 = OpSource<Int, OpError>()
        let ticks2 = OpSource<Void, OpError>()
        let recorder2 = OpRecorder<Int, OpError>()
        source2.sample(ticks2).subscribe(recorder2)
        source2.send(completion: .failure(OpError(3)))
        XCTAssertEqual(recorder2.events, [.subscription, .failure(OpError(3))])
        XCTAssertEqual(ticks2.history, [.subscribed, .request(.unlimited), .cancel])
    }

    func testASampleWithoutDemandWaitsAndIsReplacedByANewerOne() {
        let source = OpSource<Int, OpError>()
        let ticks = OpSource<Void, OpError>()
        let recorder = OpRecorder<Int, OpError>(initialDemand: .none)
        source.sample(ticks).subscribe(recorder)
        source.send(1)
        ticks.send(())
        source.send(2)
        ticks.send(())
        XCTAssertEqual(recorder.events, [.subscription])
        recorder.request(.max(1))
        XCTAssertEqual(recorder.events, [.subscription, .value(2)])
    }

    func testCancelCancelsBothAndReleases() {
        let source = OpSource<Int, OpError>()
        let ticks = OpSource<Void, OpError>()
        weak var weakRecorder: OpRecorder<Int, OpError>?
        do {
            let recorder = OpRecorder<Int, OpError>()
            weakRecorder = recorder
            source.sample(ticks).subscribe(recorder)
            recorder.cancel()
            recorder.cancel()
        }
        XCTAssertEqual(source.history, [.subscribed, .request(.unlimited), .cancel])
        XCTAssertEqual(ticks.history, [.subscribed, .request(.unlimited), .cancel])
        XCTAssertNil(weakRecorder)
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
        let recorder = OpRecorder<Int, Never>(onValue: { _ in detector.around { .none } })
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
        let count = LockedCount()
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
