import Untangle
import UntangleExtras
import XCTest

final class CollectionZipTests: XCTestCase {
    func testPairsTheNthValuesOfEveryPublisherInOrder() {
        let a = PassthroughSubject<String, TestError>()
        let b = PassthroughSubject<String, TestError>()
        let c = PassthroughSubject<String, TestError>()
        let recorder = Recorder<[String], TestError>()
        [a, b, c].zip().subscribe(recorder)
        a.send("a1")
        a.send("a2")
        b.send("b1")
        c.send("c1")
        b.send("b2")
        c.send("c2")
        XCTAssertEqual(recorder.values, [["a1", "b1", "c1"], ["a2", "b2", "c2"]])
        XCTAssertEqual(recorder.completions, [])
    }

    func testFinishesWhenAFinishedPublisherHasNoValueLeftAsCombinesZip() {
        let a = PassthroughSubject<Int, TestError>()
        let b = PassthroughSubject<Int, TestError>()
        let recorder = Recorder<[Int], TestError>()
        [a, b].zip().subscribe(recorder)
        a.send(1)
        a.send(completion: .finished)
        XCTAssertEqual(recorder.completions, [], "a value of the finished publisher is still waiting for a partner")
        b.send(10)
        XCTAssertEqual(recorder.values, [[1, 10]])
        XCTAssertEqual(recorder.completions, [.finished])
    }

    func testAFailureFailsTheResultAndNoneFinishesAtOnce() {
        let a = PassthroughSubject<Int, TestError>()
        let b = PassthroughSubject<Int, TestError>()
        let recorder = Recorder<[Int], TestError>()
        [a, b].zip().subscribe(recorder)
        b.send(completion: .failure(TestError(2)))
        XCTAssertEqual(recorder.values, [])
        XCTAssertEqual(recorder.completions, [.failure(TestError(2))])
        let none = Recorder<[Int], Never>()
        [Just<Int>]().zip().subscribe(none)
        XCTAssertEqual(none.completions, [.finished])
    }
}
