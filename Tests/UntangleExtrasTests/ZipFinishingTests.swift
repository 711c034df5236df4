import Untangle
import UntangleExtras
import XCTest

/// UntangleExtras' zips with a `finishing:` rule: `.whenEveryPublisherFinishes` is RxSwift's completion (the zip
/// finishes once every publisher finished; a collection's also when a value can never be paired), on the core's zip
/// machinery; `.whenAPublisherRunsOut` is Combine's.
final class ZipFinishingTests: XCTestCase {
    /// The parity program ZipCompletion: a publisher that finished with nothing left does not end the zip while the
    /// other still runs; the zip finishes when the other finishes, and the running one is never cancelled.
    func testTwoPublishersFinishOnlyOnceBothHaveFinished() {
        let letters = ManualPublisher<String, TestError>()
        let digits = ManualPublisher<Int, TestError>()
        let recorder = Recorder<String, TestError>()
        letters.zip(digits, finishing: .whenEveryPublisherFinishes).map { "\($0)\($1)" }.subscribe(recorder)
        letters.send("a")
        letters.finish()
        XCTAssertEqual(recorder.events, [.subscription("Zip")])
        digits.send(1)
        digits.send(2)
        XCTAssertEqual(recorder.events, [.subscription("Zip"), .value("a1")], "2 waits for a partner that never comes")
        digits.finish()
        XCTAssertEqual(recorder.events, [.subscription("Zip"), .value("a1"), .completion(.finished)])
        XCTAssertEqual(letters.history, [.request(.unlimited)])
        XCTAssertEqual(digits.history, [.request(.unlimited)], "not cancelled when letters ran out")
    }

    func testWhenAPublisherRunsOutIsCombinesZip() {
        let letters = ManualPublisher<String, TestError>()
        let digits = ManualPublisher<Int, TestError>()
        let recorder = Recorder<String, TestError>()
        letters.zip(digits, finishing: .whenAPublisherRunsOut).map { "\($0)\($1)" }.subscribe(recorder)
        letters.send("a")
        letters.finish()
        digits.send(1)
        XCTAssertEqual(recorder.events, [.subscription("Zip"), .value("a1"), .completion(.finished)])
        XCTAssertEqual(digits.history, [.request(.unlimited), .cancel])
    }

    func testAFailureEndsTheZipAtOnceAndCancelsTheOthers() {
        let a = ManualPublisher<Int, TestError>()
        let b = ManualPublisher<Int, TestError>()
        let recorder = Recorder<Int, TestError>()
        a.zip(b, finishing: .whenEveryPublisherFinishes).map { $0 + $1 }.subscribe(recorder)
        a.send(1)
        a.finish()
        b.send(completion: .failure(TestError(3)))
        XCTAssertEqual(recorder.events, [.subscription("Zip"), .completion(.failure(TestError(3)))])
        XCTAssertEqual(b.history, [.request(.unlimited), .cancel])
    }

    func testDemandGoesToEveryPublisherAndPairsWaitForIt() {
        let a = ManualPublisher<Int, Never>()
        let b = ManualPublisher<Int, Never>()
        let recorder = Recorder<Int, Never>(initialDemand: .max(1))
        a.zip(b, finishing: .whenEveryPublisherFinishes).map { $0 * 10 + $1 }.subscribe(recorder)
        XCTAssertEqual(a.history, [.request(.max(1))])
        XCTAssertEqual(b.history, [.request(.max(1))])
        a.send(1)
        b.send(2)
        a.finish()
        b.finish()
        XCTAssertEqual(recorder.events, [.subscription("Zip"), .value(12), .completion(.finished)])
    }

    func testThreeAndFourPublishersFinishOnlyOnceEveryOneHasFinished() {
        let a = PassthroughSubject<Int, Never>()
        let b = PassthroughSubject<Int, Never>()
        let c = PassthroughSubject<Int, Never>()
        let d = PassthroughSubject<Int, Never>()
        let triples = Recorder<String, Never>()
        let quadruples = Recorder<String, Never>()
        a.zip(b, c, finishing: .whenEveryPublisherFinishes).map { "\($0)\($1)\($2)" }.subscribe(triples)
        a.zip(b, c, d, finishing: .whenEveryPublisherFinishes).map { "\($0)\($1)\($2)\($3)" }.subscribe(quadruples)
        a.send(1)
        b.send(2)
        c.send(3)
        d.send(4)
        a.send(completion: .finished)
        b.send(completion: .finished)
        c.send(5)
        XCTAssertEqual(triples.events, [.subscription("Zip"), .value("123")])
        XCTAssertEqual(quadruples.events, [.subscription("Zip"), .value("1234")])
        c.send(completion: .finished)
        XCTAssertEqual(triples.events, [.subscription("Zip"), .value("123"), .completion(.finished)])
        XCTAssertEqual(quadruples.events, [.subscription("Zip"), .value("1234")], "d still runs")
        d.send(completion: .finished)
        XCTAssertEqual(quadruples.events, [.subscription("Zip"), .value("1234"), .completion(.finished)])
    }

    /// RxSwift's `zip` of a collection also finishes when a value arrives that can never be paired: every other
    /// publisher has finished (one of them with nothing left).
    func testACollectionFinishesWhenAValueCanNeverBePaired() {
        let a = ManualPublisher<Int, TestError>()
        let b = ManualPublisher<Int, TestError>()
        let c = ManualPublisher<Int, TestError>()
        let recorder = Recorder<[Int], TestError>()
        [a, b, c].zip(finishing: .whenEveryPublisherFinishes).subscribe(recorder)
        a.send(1)
        a.finish()
        b.send(2)
        b.send(20)
        c.send(3)
        XCTAssertEqual(recorder.events, [.subscription("Zip"), .value([1, 2, 3])])
        c.finish()
        XCTAssertEqual(recorder.events, [.subscription("Zip"), .value([1, 2, 3])], "b still runs: no value came yet")
        b.send(200)
        XCTAssertEqual(recorder.events, [.subscription("Zip"), .value([1, 2, 3]), .completion(.finished)])
        XCTAssertEqual(b.history, [.request(.unlimited), .cancel])
    }

    func testACollectionFinishesOnceEveryPublisherFinished() {
        let a = PassthroughSubject<Int, Never>()
        let b = PassthroughSubject<Int, Never>()
        let recorder = Recorder<[Int], Never>()
        [a, b].zip(finishing: .whenEveryPublisherFinishes).subscribe(recorder)
        a.send(completion: .finished)
        XCTAssertEqual(recorder.events, [.subscription("Zip")])
        b.send(completion: .finished)
        XCTAssertEqual(recorder.events, [.subscription("Zip"), .completion(.finished)])
    }

    func testAnEmptyCollectionFinishesAtOnceAndRunsOutIsZip() {
        let empty = Recorder<[Int], Never>()
        [PassthroughSubject<Int, Never>]().zip(finishing: .whenEveryPublisherFinishes).subscribe(empty)
        XCTAssertEqual(empty.completions, [.finished])
        XCTAssertEqual(empty.values, [])
        let a = PassthroughSubject<Int, Never>()
        let b = PassthroughSubject<Int, Never>()
        let combines = Recorder<[Int], Never>()
        [a, b].zip(finishing: .whenAPublisherRunsOut).subscribe(combines)
        a.send(completion: .finished)
        XCTAssertEqual(combines.completions, [.finished])
    }
}

final class ZipFinishingConcurrencyTests: XCTestCase {
    /// Two publishers sending from two threads at once, then finishing: every pair arrives once, in order, then the
    /// completion.
    func testPublishersOnTwoThreadsPairEveryValueThenFinish() {
        let a = PassthroughSubject<Int, Never>()
        let b = PassthroughSubject<Int, Never>()
        let recorder = Recorder<Int, Never>()
        a.zip(b, finishing: .whenEveryPublisherFinishes).map { $0 * 10_000 + $1 }.subscribe(recorder)
        runConcurrently(threads: 2) { thread in
            let subject = thread == 0 ? a : b
            for value in 0..<2_000 { subject.send(value) }
            subject.send(completion: .finished)
        }
        recorder.waitForCompletion(timeout: 60)
        XCTAssertEqual(recorder.values, (0..<2_000).map { $0 * 10_000 + $0 })
        XCTAssertEqual(recorder.completions, [.finished])
    }
}
