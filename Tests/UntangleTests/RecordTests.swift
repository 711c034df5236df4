import Foundation
import Untangle
import XCTest

final class RecordTests: XCTestCase {
    private let record = Record<Int, TestError>(output: [1, 2, 3], completion: .failure(TestError(7)))

    func testWithoutDemandOnlyTheSubscriptionArrivesThenRequestsReplay() {
        let recorder = Recorder<Int, TestError>(initialDemand: nil)
        record.subscribe(recorder)
        XCTAssertEqual(recorder.events, [.subscription("[1, 2, 3]")])
        recorder.request(.max(2))
        XCTAssertEqual(recorder.events, [.subscription("[1, 2, 3]"), .value(1), .value(2)])
        recorder.request(.max(1))
        XCTAssertEqual(
            recorder.events,
            [.subscription("[1, 2, 3]"), .value(1), .value(2), .value(3), .completion(.failure(TestError(7)))])
    }

    func testDemandOfOne() {
        let recorder = Recorder<Int, TestError>(initialDemand: .max(1))
        record.subscribe(recorder)
        XCTAssertEqual(recorder.events, [.subscription("[1, 2, 3]"), .value(1)])
    }

    func testUnlimitedDemand() {
        let recorder = Recorder<Int, TestError>(initialDemand: .unlimited)
        record.subscribe(recorder)
        XCTAssertEqual(
            recorder.events,
            [.subscription("[1, 2, 3]"), .value(1), .value(2), .value(3), .completion(.failure(TestError(7)))])
    }

    func testDemandReturnedFromReceiveIsAdded() {
        let recorder = Recorder<Int, TestError>(initialDemand: .max(1), onValue: { _, _ in .max(1) })
        record.subscribe(recorder)
        XCTAssertEqual(recorder.values, [1, 2, 3])
        XCTAssertEqual(recorder.completions, [.failure(TestError(7))])
    }

    func testEmptyOutputCompletesAtSubscriptionWithoutDemand() {
        let recorder = Recorder<Int, TestError>(initialDemand: nil)
        Record<Int, TestError>(output: [], completion: .failure(TestError(2))).subscribe(recorder)
        XCTAssertEqual(recorder.events, [.subscription("Empty"), .completion(.failure(TestError(2)))])
    }

    func testCancelInsideReceiveStopsTheReplay() {
        let recorder = Recorder<Int, TestError>(
            initialDemand: .unlimited,
            onValue: { recorder, value in
                if value == 2 { recorder.cancel() }
                return .none
            })
        record.subscribe(recorder)
        XCTAssertEqual(recorder.events, [.subscription("[1, 2, 3]"), .value(1), .value(2)])
    }

    func testCancelBeforeAndAfterEmission() {
        let before = Recorder<Int, TestError>(initialDemand: nil)
        record.subscribe(before)
        before.cancel()
        before.request(.unlimited)
        XCTAssertEqual(before.events, [.subscription("[1, 2, 3]")])

        let after = Recorder<Int, TestError>(initialDemand: .max(1))
        record.subscribe(after)
        after.cancel()
        after.request(.unlimited)
        XCTAssertEqual(after.events, [.subscription("[1, 2, 3]"), .value(1)])
    }

    func testReentrantRequestsReplayOneAtATime() {
        let gauge = OverlapGauge()
        let recorder = Recorder<Int, TestError>(
            initialDemand: .max(1),
            onValue: { recorder, _ in
                gauge.enter()
                recorder.request(.max(1))
                gauge.leave()
                return .none
            })
        record.subscribe(recorder)
        XCTAssertEqual(recorder.values, [1, 2, 3])
        XCTAssertEqual(recorder.completions, [.failure(TestError(7))])
        XCTAssertEqual(gauge.maximum, 1)
    }

    func testEverySubscriberGetsTheWholeRecording() {
        let first = Recorder<Int, TestError>()
        let second = Recorder<Int, TestError>()
        record.subscribe(first)
        record.subscribe(second)
        XCTAssertEqual(first.events, second.events)
        XCTAssertEqual(first.values, [1, 2, 3])
    }

    func testSubscriptionReleasesSubscriber() {
        assertSubscriptionReleasesSubscriber(record)
        assertSubscriptionReleasesSubscriber(record, initialDemand: .max(1)) { $0.cancel() }
    }

    // MARK: Recording

    func testRecordingClosure() {
        let record = Record<String, TestError> { recording in
            recording.receive("a")
            recording.receive("b")
            recording.receive(completion: .failure(TestError(1)))
        }
        XCTAssertEqual(record.recording.output, ["a", "b"])
        XCTAssertEqual(record.recording.completion, .failure(TestError(1)))
        let recorder = Recorder<String, TestError>()
        record.subscribe(recorder)
        XCTAssertEqual(
            recorder.events,
            [.subscription(#"["a", "b"]"#), .value("a"), .value("b"), .completion(.failure(TestError(1)))])
    }

    func testRecordingWithoutACompletionFinishes() {
        let record = Record<Int, TestError> { recording in
            recording.receive(1)
        }
        XCTAssertEqual(record.recording.completion, .finished)
        let recorder = Recorder<Int, TestError>()
        record.subscribe(recorder)
        XCTAssertEqual(recorder.events, [.subscription("[1]"), .value(1), .completion(.finished)])
    }

    func testEmptyRecordingFinishes() {
        let recording = Record<Int, Never>.Recording()
        XCTAssertEqual(recording.output, [])
        XCTAssertEqual(recording.completion, .finished)
    }

    func testInitFromRecording() {
        let recording = Record<Int, TestError>.Recording(output: [4, 5])
        XCTAssertEqual(recording.completion, .finished)
        let record = Record(recording: recording)
        XCTAssertEqual(record.recording, recording)
        XCTAssertEqual(record, Record<Int, TestError>(output: [4, 5], completion: .finished))
        XCTAssertNotEqual(record, Record<Int, TestError>(output: [4, 5], completion: .failure(TestError())))
    }

    // Recording after the completion stops the program (as in Apple's Combine); not tested in-process.

    func testCodableRoundTrip() throws {
        let records = [
            Record<Int, CodableError>(output: [1, 2], completion: .finished),
            Record<Int, CodableError>(output: [], completion: .failure(CodableError(code: 3))),
        ]
        let data = try JSONEncoder().encode(records)
        XCTAssertEqual(try JSONDecoder().decode([Record<Int, CodableError>].self, from: data), records)
    }

    func testSubscriptionDescribesItsOutputThenCancelledEvents() throws {
        let recorder = Recorder<Int, TestError>(initialDemand: nil)
        Record<Int, TestError>(output: [1, 2], completion: .failure(TestError(4))).subscribe(recorder)
        let subscription = try XCTUnwrap(recorder.subscription)
        XCTAssertEqual(String(describing: subscription), "[1, 2]")
        let running = Mirror(reflecting: subscription).children.map { "\($0.label ?? "-"): \($0.value)" }
        XCTAssertEqual(running, ["sequence: [1, 2]", "completion: failure(TestError(4))"])
        recorder.request(.max(2))
        XCTAssertEqual(String(describing: subscription), "Cancelled Events")
        let ended = Mirror(reflecting: subscription).children.map { "\($0.label ?? "-"): \($0.value)" }
        XCTAssertEqual(ended, ["sequence: []", "completion: failure(TestError(4))"])
    }

    // Regression: `request(.none)` stopped the program; Combine's record ignores it.
    func testRequestNoneIsIgnored() {
        let recorder = Recorder<Int, Never>(initialDemand: nil)
        Record<Int, Never>(output: [1], completion: .finished).subscribe(recorder)
        recorder.subscription?.request(.none)
        recorder.request(.max(1))
        XCTAssertEqual(recorder.events, [.subscription("[1]"), .value(1), .completion(.finished)])
    }

    func testRecordingInputIsItsOutputType() {
        XCTAssertTrue(Record<Int, Never>.Recording.Input.self == Int.self)
    }

    func testEncodeIntoWritesOnlyOutputAndCompletion() throws {
        var open = Record<Int, CodableError>.Recording()
        open.receive(1)
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let viaInto = try encoder.encode(EncodeInto(recording: open))
        XCTAssertEqual(String(decoding: viaInto, as: UTF8.self), #"{"completion":{"success":true},"output":[1]}"#)
        XCTAssertEqual(try encoder.encode(open), viaInto)
    }

    func testRecordingDecodesFromOutputAndCompletionAloneAsComplete() throws {
        let json = #"{"output": [1, 2], "completion": {"success": true}}"#
        let decoded = try JSONDecoder().decode(Record<Int, CodableError>.Recording.self, from: Data(json.utf8))
        XCTAssertEqual(decoded, Record<Int, CodableError>.Recording(output: [1, 2], completion: .finished))
        let recorder = Recorder<Int, CodableError>()
        Record(recording: decoded).subscribe(recorder)
        XCTAssertEqual(recorder.events, [.subscription("[1, 2]"), .value(1), .value(2), .completion(.finished)])
    }

    // As in Combine, an open recording is encoded like a complete one (output and completion only) and so decodes
    // as complete: recording more into the decoded copy stops the program (not tested in-process).
    func testOpenRecordingRoundTripsAsComplete() throws {
        var recording = Record<Int, CodableError>.Recording()
        recording.receive(1)
        let data = try JSONEncoder().encode(recording)
        let decoded = try JSONDecoder().decode(Record<Int, CodableError>.Recording.self, from: data)
        XCTAssertEqual(decoded, Record<Int, CodableError>.Recording(output: [1], completion: .finished))
    }
}

/// Encodes a recording through `encode(into:)`.
private struct EncodeInto: Encodable {
    let recording: Record<Int, CodableError>.Recording
    func encode(to encoder: Encoder) throws { try recording.encode(into: encoder) }
}

struct CodableError: Error, Codable, Equatable, Hashable {
    let code: Int
}
