import Untangle
import UntangleExtras
import XCTest

final class ElementAtTests: XCTestCase {
    private func history(_ recorder: Recorder<Int, Error>) -> [String] {
        recorder.events.map(\.description)
    }

    func testCountsValuesNotCollectionIndices() {
        // Combine's output(at: 2) on a Range's publisher takes the Range's index (the value 2); RxSwift's
        // element(at: 2) is the third value (the migrated parity program SequenceOperators relies on this).
        let recorder = Recorder<Int, Error>()
        (1..<7).publisher.element(at: 2).subscribe(recorder)
        XCTAssertEqual(history(recorder), ["subscription(ElementAt)", "value(3)", "finished"])
    }

    func testSkippedValuesAreAskedForAgainAndTheUpstreamIsCancelledAfterTheValue() {
        let upstream = ManualPublisher<Int, Never>()
        let recorder = Recorder<Int, Error>(initialDemand: .max(1))
        upstream.element(at: 2).subscribe(recorder)
        XCTAssertEqual(upstream.send(10), .max(1))
        XCTAssertEqual(upstream.send(20), .max(1))
        XCTAssertEqual(upstream.send(30), .none)
        upstream.send(40)
        upstream.send(completion: .finished)
        XCTAssertEqual(history(recorder), ["subscription(ElementAt)", "value(30)", "finished"])
        XCTAssertEqual(upstream.history, [.request(.max(1)), .cancel])
    }

    func testFailsWithArgumentOutOfRangeWhenTheUpstreamFinishesFirst() {
        // RxSwift's element(at:) errors with RxError.argumentOutOfRange where Combine's output(at:) finishes.
        let recorder = Recorder<Int, Error>()
        [1, 2].publisher.element(at: 2).subscribe(recorder)
        XCTAssertEqual(history(recorder), ["subscription(ElementAt)", "failure(ArgumentOutOfRange(index: 2))"])
        XCTAssertEqual(
            recorder.completion.flatMap { completion -> ArgumentOutOfRange? in
                if case .failure(let error) = completion { return error as? ArgumentOutOfRange }
                return nil
            }, ArgumentOutOfRange(index: 2))
    }

    func testAnUpstreamFailureBeforeTheValuePassesThrough() {
        let upstream = ManualPublisher<Int, TestError>()
        let recorder = Recorder<Int, Error>()
        upstream.element(at: 1).subscribe(recorder)
        upstream.send(1)
        upstream.send(completion: .failure(TestError(7)))
        XCTAssertEqual(history(recorder), ["subscription(ElementAt)", "failure(TestError(7))"])
        XCTAssertEqual(upstream.history, [.request(.unlimited)])
    }

    func testEachSubscriptionCountsFromZero() {
        let third = [5, 6, 7, 8].publisher.element(at: 2)
        let first = Recorder<Int, Error>()
        let second = Recorder<Int, Error>()
        third.subscribe(first)
        third.subscribe(second)
        XCTAssertEqual(first.values, [7])
        XCTAssertEqual(second.values, [7])
    }

    func testCancelCancelsTheUpstreamOnceAndNothingArrivesAfterIt() {
        let upstream = ManualPublisher<Int, Never>()
        let recorder = Recorder<Int, Error>()
        upstream.element(at: 1).subscribe(recorder)
        upstream.send(1)
        recorder.cancel()
        recorder.cancel()
        upstream.send(2)
        upstream.send(completion: .finished)
        XCTAssertEqual(history(recorder), ["subscription(ElementAt)"])
        XCTAssertEqual(upstream.history, [.request(.unlimited), .cancel])
    }
}
