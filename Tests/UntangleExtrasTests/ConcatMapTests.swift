import Untangle
import UntangleExtras
import XCTest

final class ConcatMapTests: XCTestCase {
    func testInnersRunOneAfterTheOtherInOrder() {
        let outer = ManualPublisher<Int, TestError>(recordsSubscriptions: true)
        let inners = [
            ManualPublisher<String, TestError>(recordsSubscriptions: true),
            ManualPublisher<String, TestError>(recordsSubscriptions: true),
        ]
        let recorder = Recorder<String, TestError>(initialDemand: .max(3))
        outer.concatMap { inners[$0] }.subscribe(recorder)
        XCTAssertEqual(outer.history, [.subscribed, .request(.max(1))])
        outer.send(0)
        inners[0].send("a")
        XCTAssertEqual(inners[1].subscriptions, 0, "the second inner waits for the first")
        inners[0].finish()
        XCTAssertEqual(outer.history, [.subscribed, .request(.max(1)), .request(.max(1))])
        outer.send(1)
        inners[1].send("b")
        outer.finish()
        XCTAssertFalse(recorder.isCompleted)
        inners[1].finish()
        XCTAssertEqual(recorder.events, [.subscription("FlatMap"), .value("a"), .value("b"), .completion(.finished)])
        // As flatMap asks its inners: one value at a time (each delivered value returns one more).
        XCTAssertEqual(inners[0].history, [.subscribed, .request(.max(1))])
        XCTAssertEqual(inners[1].history, [.subscribed, .request(.max(1))])
    }

    func testSequenceSourceLosesNothing() {
        var values: [Int] = []
        let cancellable = [1, 2, 3].publisher.concatMap { n in (0..<n).publisher.map { _ in n } }
            .sink { values.append($0) }
        XCTAssertEqual(values, [1, 2, 2, 3, 3, 3])
        withExtendedLifetime(cancellable) {}
    }

    // ReactiveX/RxSwift a8e409b1 and baf816f7 (pull request 2616): concatMap (a merge one at a time) subscribed the
    // next inner from inside the previous inner's completion, so a long run of inners that finish while being
    // subscribed overflowed the stack. 200,000 of them run in constant stack depth, in order.
    func testManyInnersThatFinishWhileSubscribedDoNotOverflowTheStack() {
        let count = 200_000
        var received = 0
        var inOrder = true
        var completion: Subscribers.Completion<Never>?
        let cancellable = (0..<count).publisher.concatMap { Just($0) }
            .sink(
                receiveCompletion: { completion = $0 },
                receiveValue: { value in
                    inOrder = inOrder && value == received
                    received += 1
                })
        XCTAssertEqual(received, count)
        XCTAssertTrue(inOrder)
        XCTAssertEqual(completion, .finished)
        withExtendedLifetime(cancellable) {}
    }

    func testHotSubjectDropsValuesSentWhileAnInnerRunsAsDocumented() {
        let subject = PassthroughSubject<Int, Never>()
        let inner = PassthroughSubject<Int, Never>()
        var values: [Int] = []
        let cancellable = subject.concatMap { n in inner.map { $0 + n } }.sink { values.append($0) }
        subject.send(100)
        subject.send(200)  // no demand upstream while the first inner runs: dropped by the subject
        inner.send(1)
        XCTAssertEqual(values, [101])
        withExtendedLifetime(cancellable) {}
    }

    func testInnerFailureFailsAndCancelsOuterOnce() {
        let outer = ManualPublisher<Int, TestError>(recordsSubscriptions: true)
        let recorder = Recorder<Int, TestError>()
        outer.concatMap { _ in Fail<Int, TestError>(error: TestError(9)) }.subscribe(recorder)
        outer.send(0)
        XCTAssertEqual(recorder.events, [.subscription("FlatMap"), .completion(.failure(TestError(9)))])
        XCTAssertEqual(outer.history, [.subscribed, .request(.max(1)), .cancel])
    }
}
