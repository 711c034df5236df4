import Untangle
import UntangleExtras
import XCTest

final class CollectionCombineLatestTests: XCTestCase {
    func testPublishesOnceEveryPublisherHasAValueThenOnEachValue() {
        let a = PassthroughSubject<Int, TestError>()
        let b = PassthroughSubject<Int, TestError>()
        let c = PassthroughSubject<Int, TestError>()
        let recorder = Recorder<[Int], TestError>()
        [a, b, c].combineLatest().subscribe(recorder)
        a.send(1)
        b.send(2)
        a.send(3)
        c.send(4)
        b.send(5)
        a.send(completion: .finished)
        b.send(completion: .finished)
        c.send(6)
        c.send(completion: .finished)
        XCTAssertEqual(recorder.values, [[3, 2, 4], [3, 5, 4], [3, 5, 6]])
        XCTAssertEqual(recorder.completions, [.finished], "finishes when every publisher has finished")
    }

    func testAFailureOfAnyPublisherFailsTheResult() {
        let a = PassthroughSubject<Int, TestError>()
        let b = PassthroughSubject<Int, TestError>()
        let recorder = Recorder<[Int], TestError>()
        [a, b].combineLatest().subscribe(recorder)
        a.send(1)
        b.send(2)
        b.send(completion: .failure(TestError(7)))
        a.send(3)
        XCTAssertEqual(recorder.values, [[1, 2]])
        XCTAssertEqual(recorder.completions, [.failure(TestError(7))])
    }

    func testOnePublisherPublishesOneElementArrays() {
        let one = Recorder<[Int], Never>()
        [[1, 2].publisher].combineLatest().subscribe(one)
        XCTAssertEqual(one.values, [[1], [2]])
        XCTAssertEqual(one.completions, [.finished])
    }

    // ReactiveX/RxSwift 9e723c8f (issue 1205) and 5289de9a (issue 1879): combineLatest of an empty array never
    // completed, then completed without a value. RxSwift 5's publishes the combination of nothing, one empty array,
    // then finishes, so an empty list of sources still yields its (empty) list of values. Untangle finished without
    // a value, as before 5289de9a; it now publishes the empty array, within demand.
    func testAnEmptyCollectionPublishesOneEmptyArrayThenFinishes() {
        let none = Recorder<[Int], TestError>(initialDemand: nil)
        [PassthroughSubject<Int, TestError>]().combineLatest().subscribe(none)
        XCTAssertEqual(none.values, [], "nothing before demand")
        none.request(.max(1))
        XCTAssertEqual(none.values, [[]])
        XCTAssertEqual(none.completions, [.finished])
    }

    func testCancelReachesEveryPublisher() {
        let a = ManualPublisher<Int, Never>()
        let b = ManualPublisher<Int, Never>()
        let recorder = Recorder<[Int], Never>()
        [a, b].combineLatest().subscribe(recorder)
        a.send(1)
        b.send(2)
        recorder.cancel()
        a.send(3)
        XCTAssertEqual(recorder.values, [[1, 2]])
        XCTAssertEqual(a.history.last, .cancel)
        XCTAssertEqual(b.history.last, .cancel)
    }
}
