import Untangle
import XCTest

final class SmokeTests: XCTestCase {
    func testSequenceThroughSink() {
        var received: [Int] = []
        var completion: Subscribers.Completion<Never>?
        let cancellable = [1, 2, 3].publisher.sink(
            receiveCompletion: { completion = $0 }, receiveValue: { received.append($0) })
        XCTAssertEqual(received, [1, 2, 3])
        XCTAssertEqual(completion, .finished)
        cancellable.cancel()
    }

    func testRecorderSeesFullHistory() {
        let recorder = Recorder<Int, Never>(initialDemand: .max(2))
        [1, 2, 3].publisher.subscribe(recorder)
        XCTAssertEqual(recorder.events, [.subscription("[1, 2, 3]"), .value(1), .value(2)])
        recorder.request(.max(1))
        XCTAssertEqual(
            recorder.events, [.subscription("[1, 2, 3]"), .value(1), .value(2), .value(3), .completion(.finished)])
    }
}
