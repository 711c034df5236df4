import Dispatch
import Foundation
import UntangleSync
import XCTest

@testable import Untangle

/// The Swift 6 isolation check (issue 19): a closure handed to `sink`, `assign`, `handleEvents` or `map` on an actor
/// is checked to run on that actor. The firing side stops the process, so it is tested in child processes by
/// Examples/Swift6Client (Scripts/check-swift6-client.sh); these tests show what is recorded and that correct code
/// sees nothing.
final class IsolationCheckTests: XCTestCase {
    func testNonisolatedCodeRecordsNoActor() {
        XCTAssertNil(recordedIsolation().actor)
        XCTAssertNil(PassthroughSubject<Int, Never>().map { $0 }.isolation.actor)
    }

    func testNonisolatedSinkRunsOnAnyThread() {
        let subject = PassthroughSubject<Int, Never>()
        let values = LockedBox<[Int]>([])
        let cancellable = subject.map { $0 * 10 }.sink { value in values.withLock { $0.append(value) } }
        let sent = DispatchSemaphore(value: 0)
        Thread {
            subject.send(1)
            subject.send(2)
            sent.signal()
        }.start()
        sent.wait()
        XCTAssertEqual(values.withLock { $0 }, [10, 20])
        cancellable.cancel()
    }

    func testMainActorSinkRecordsTheMainActorAndTheMainThread() {
        MainActor.assumeIsolated {
            let recorded = recordedIsolation()
            XCTAssertTrue(recorded.actor === MainActor.shared)
            XCTAssertEqual(recorded.mainThread, ThreadID.current.bits)
        }
    }

    func testMainActorSinkFedOnTheMainThreadIsSilent() {
        MainActor.assumeIsolated {
            let subject = PassthroughSubject<Int, Never>()
            var values: [Int] = []
            var completions: [Subscribers.Completion<Never>] = []
            let cancellable = subject.map { $0 + 1 }
                .handleEvents(receiveOutput: { values.append(-$0) })
                .sink(receiveCompletion: { completions.append($0) }, receiveValue: { values.append($0) })
            subject.send(1)
            subject.send(2)
            subject.send(completion: .finished)
            XCTAssertEqual(values, [-2, 2, -3, 3])
            XCTAssertEqual(completions, [.finished])
            cancellable.cancel()
        }
    }

    func testMainActorSinkAfterAMainQueueHopIsSilent() {
        MainActor.assumeIsolated {
            let subject = PassthroughSubject<Int, Never>()
            var values: [Int] = []
            let cancellable = subject.receive(on: DispatchQueue.main).sink { values.append($0) }
            Thread {
                subject.send(1)
                subject.send(2)
            }.start()
            let deadline = Date().addingTimeInterval(10)
            while values.count < 2 && Date() < deadline {
                _ = RunLoop.main.run(mode: .default, before: Date().addingTimeInterval(0.01))
            }
            XCTAssertEqual(values, [1, 2])
            cancellable.cancel()
        }
    }

    func testIsolationNilOptsOutOnTheMainActor() {
        MainActor.assumeIsolated {
            XCTAssertNil(recordedIsolation(isolation: nil).actor)
        }
    }

    func testFusedMapKeepsTheMainActorOfEitherClosure() {
        let subject = PassthroughSubject<Int, Never>()
        let nonisolated = subject.map { $0 + 1 }
        MainActor.assumeIsolated {
            XCTAssertTrue(nonisolated.map { $0 * 2 }.isolation.actor === MainActor.shared)
            let onMain = subject.map { $0 + 1 }
            XCTAssertTrue(onMain.map({ $0 * 2 }, isolation: nil).isolation.actor === MainActor.shared)
        }
    }

    func testMainActorFilterRecordsTheActorAndPassesOnTheMainThread() {
        MainActor.assumeIsolated {
            let subject = PassthroughSubject<Int, Never>()
            var values: [Int] = []
            let filter = subject.filter { $0.isMultiple(of: 2) }
            XCTAssertTrue(filter.isolation.actor === MainActor.shared)
            XCTAssertNil(subject.filter({ _ in true }, isolation: nil).isolation.actor)
            let cancellable = filter.filter { $0 > 2 }.sink { values.append($0) }
            for value in 1...6 { subject.send(value) }
            XCTAssertEqual(values, [4, 6])
            cancellable.cancel()
        }
    }

    func testActorSinkFedFromInsideTheActorIsSilent() async {
        let model = CountingActor()
        let total = await model.sendInside([1, 2, 3])
        XCTAssertEqual(total, 6)
    }

    func testMessageNamesTheOperatorTheActorAndTheFix() {
        let message = IsolationCheck.message(MainActor.shared, "sink")
        XCTAssertTrue(message.contains("the closure passed to `sink` was formed on MainActor"), message)
        XCTAssertTrue(message.contains("`.receive(on: DispatchQueue.main)` (or `RunLoop.main`) before `sink`"), message)
        XCTAssertTrue(message.contains("`isolation: nil`"), message)
        let actorMessage = IsolationCheck.message(CountingActor(), "map")
        XCTAssertTrue(actorMessage.contains("formed on CountingActor"), actorMessage)
    }
}

private actor CountingActor {
    var total = 0

    func sendInside(_ values: [Int]) -> Int {
        let subject = PassthroughSubject<Int, Never>()
        let cancellable = subject.sink { value in self.total += value }
        XCTAssertTrue(recordedIsolation().actor === self)
        for value in values { subject.send(value) }
        cancellable.cancel()
        return total
    }
}

/// What a sink records: its closures are wrapped in the check of the `isolation` argument, defaulted to the caller's
/// `#isolation` exactly as here (the sink keeps the check inside its closures, so the test reads it from a function
/// with the same default; the check firing is tested in child processes by Examples/Swift6Client).
private func recordedIsolation(isolation: (any Actor)? = #isolation) -> IsolationCheck {
    IsolationCheck(isolation)
}
