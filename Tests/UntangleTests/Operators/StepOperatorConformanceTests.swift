import Foundation
import Untangle
import XCTest

/// How each one-in-one-out operator presents itself and treats signals that come out of order, as Combine does.
final class StepOperatorConformanceTests: XCTestCase {
    private func shape<P: Publisher>(
        _ make: (HoldingPublisher<Int, TestError>) -> P
    ) throws -> (description: String?, playground: String?, mirror: [String?]) {
        let upstream = HoldingPublisher<Int, TestError>()
        make(upstream).subscribe(Recorder<P.Output, P.Failure>())
        let raw = try XCTUnwrap(upstream.raw)
        return (
            (raw as? CustomStringConvertible)?.description,
            (raw as? CustomPlaygroundDisplayConvertible)?.playgroundDescription as? String,
            ((raw as? CustomReflectable)?.customMirror.children.map(\.label)) ?? ["not reflectable"]
        )
    }

    func testTransparentOperatorsDescribeThemselvesWithNoMirrorChildren() throws {
        for (name, check) in [
            ("Map", try shape { $0.map { $0 } }),
            ("Filter", try shape { $0.filter { _ in true } }),
            ("CompactMap", try shape { $0.compactMap { $0 } }),
            ("MapError", try shape { $0.mapError { $0 } }),
            ("Map", try shape { $0.map { Optional($0) }.replaceNil(with: 0) }),
        ] {
            XCTAssertEqual(check.description, name)
            XCTAssertEqual(check.playground, name)
            XCTAssertEqual(check.mirror, [], name)
        }
    }

    func testStrictOperatorsShowTheirDownstreamInTheMirror() throws {
        for (name, check) in [
            ("TryFilter", try shape { $0.tryFilter { _ in true } }),
            ("TryCompactMap", try shape { $0.tryCompactMap { $0 } }),
            ("PrefixWhile", try shape { $0.prefix { _ in true } }),
            ("TryPrefixWhile", try shape { $0.tryPrefix { _ in true } }),
        ] {
            XCTAssertEqual(check.description, name)
            XCTAssertEqual(check.playground, name)
            XCTAssertEqual(check.mirror, ["downstream"], name)
        }
    }

    func testLenientOperatorsHaveNoMirrorChildren() throws {
        for (name, check) in [
            ("TryMap", try shape { $0.tryMap { $0 } }),
            ("DropWhile", try shape { $0.drop { _ in true } }),
            ("TryDropWhile", try shape { $0.tryDrop { _ in true } }),
            ("Output", try shape { $0.prefix(3) }),
            ("Drop", try shape { $0.dropFirst(2) }),
        ] {
            XCTAssertEqual(check.description, name)
            XCTAssertEqual(check.playground, name)
            XCTAssertEqual(check.mirror, [], name)
        }
    }

    func testMirrorsWithOperatorState() throws {
        XCTAssertEqual(try shape { $0.scan(0, +) }.mirror, ["downstream", "result"])
        XCTAssertEqual(
            try shape { $0.map(\.bitWidth) }.mirror, ["keyPath"], "a key-path map is described as ValueForKey")
        XCTAssertEqual(try shape { $0.map(\.bitWidth) }.description, "ValueForKey")
        XCTAssertEqual(try shape { $0.map(\.bitWidth, \.byteSwapped) }.mirror, ["keyPath0", "keyPath1"])
        XCTAssertEqual(try shape { $0.map(\.bitWidth, \.byteSwapped) }.description, "ValueForKeys")
        XCTAssertEqual(
            try shape { $0.assertNoFailure("PREFIX", file: "File.swift", line: 7) }.mirror, ["file", "line", "prefix"])
        XCTAssertEqual(
            try shape { $0.encode(encoder: JSONEncoder()) }.mirror, ["downstream", "finished", "upstreamSubscription"])
    }

    func testScanMirrorShowsTheLatestResult() throws {
        let upstream = HoldingPublisher<Int, TestError>()
        upstream.scan(10, +).subscribe(Recorder<Int, TestError>())
        _ = upstream.subscriber?.receive(5)
        let raw = try XCTUnwrap(upstream.raw)
        let mirror = try XCTUnwrap((raw as? CustomReflectable)?.customMirror)
        XCTAssertEqual(mirror.children.map { "\($0.label ?? "")=\($0.value)" }.last, "result=15")
    }

    func testRemoveDuplicatesMirrorShowsTheLastValueReceived() throws {
        let upstream = HoldingPublisher<Int, TestError>()
        upstream.removeDuplicates().subscribe(Recorder<Int, TestError>())
        let raw = try XCTUnwrap(upstream.raw)
        let before = try XCTUnwrap((raw as? CustomReflectable)?.customMirror)
        XCTAssertEqual(before.children.map { "\($0.label ?? "")=\($0.value)" }.last, "last=nil")
        upstream.subscriber?.receive(subscription: LoggingSubscription())
        _ = upstream.subscriber?.receive(4)
        _ = upstream.subscriber?.receive(4)
        let after = try XCTUnwrap((raw as? CustomReflectable)?.customMirror)
        XCTAssertEqual(after.children.map { "\($0.label ?? "")=\($0.value)" }.last, "last=Optional(4)")
    }

    func testDropWhileIgnoresValuesCompletionsAndCancelBeforeItsSubscription() throws {
        let upstream = HoldingPublisher<Int, TestError>()
        let recorder = Recorder<Int, TestError>(initialDemand: nil)
        upstream.drop { _ in false }.subscribe(recorder)
        let subscriber = try XCTUnwrap(upstream.subscriber)
        XCTAssertEqual(subscriber.receive(1), .none)
        subscriber.receive(completion: .finished)
        try XCTUnwrap(upstream.raw.flatMap { $0 as? Subscription }).cancel()
        let subscription = LoggingSubscription()
        subscriber.receive(subscription: subscription)
        XCTAssertEqual(subscription.log, [], "the early cancel was ignored: the subscription is accepted")
        XCTAssertEqual(recorder.events, [.subscription("DropWhile")])
    }

    func testStrictOperatorCancelledBeforeItsSubscriptionCancelsTheLateOne() throws {
        let upstream = HoldingPublisher<Int, TestError>()
        let recorder = Recorder<Int, TestError>(initialDemand: nil)
        upstream.prefix { _ in true }.subscribe(recorder)
        try XCTUnwrap(upstream.raw.flatMap { $0 as? Subscription }).cancel()
        let subscription = LoggingSubscription()
        upstream.subscriber?.receive(subscription: subscription)
        XCTAssertEqual(subscription.log, ["cancel"])
        XCTAssertEqual(recorder.events, [])
    }

    func testTryMapPassesAnEarlyValueButIgnoresAnEarlyCompletion() throws {
        let upstream = HoldingPublisher<Int, TestError>()
        let recorder = Recorder<Int, Error>(initialDemand: nil) { _, _ in .max(3) }
        upstream.tryMap { $0 * 2 }.subscribe(recorder)
        let subscriber = try XCTUnwrap(upstream.subscriber)
        XCTAssertEqual(subscriber.receive(1), .max(3))
        subscriber.receive(completion: .finished)
        XCTAssertEqual(recorder.values, [2])
        XCTAssertEqual(recorder.events.count, 1, "no completion")
    }

    func testOutputIgnoresAnEarlyRequest() throws {
        let upstream = HoldingPublisher<Int, TestError>()
        upstream.prefix(2).subscribe(Recorder<Int, TestError>(initialDemand: nil))
        try XCTUnwrap(upstream.raw.flatMap { $0 as? Subscription }).request(.max(1))
        let subscription = LoggingSubscription()
        upstream.subscriber?.receive(subscription: subscription)
        XCTAssertEqual(subscription.log, [])
    }

    func testDropGivesItsSubscriptionFirstAndAddsUpEarlyDemand() throws {
        let upstream = HoldingPublisher<Int, TestError>()
        let recorder = Recorder<Int, TestError>(initialDemand: .max(10))
        upstream.dropFirst(4).subscribe(recorder)
        XCTAssertEqual(recorder.events, [.subscription("Drop")], "before the upstream's subscription")
        recorder.request(.max(5))
        let subscription = LoggingSubscription()
        upstream.subscriber?.receive(subscription: subscription)
        XCTAssertEqual(subscription.log, ["request(max(19))"])
        let second = LoggingSubscription()
        upstream.subscriber?.receive(subscription: second)
        XCTAssertEqual(second.log, ["cancel"])
    }

    func testDropCancelledBeforeTheUpstreamSubscriptionCancelsIt() throws {
        let upstream = HoldingPublisher<Int, TestError>()
        let recorder = Recorder<Int, TestError>(initialDemand: .max(1))
        upstream.dropFirst(1).subscribe(recorder)
        recorder.cancel()
        let subscription = LoggingSubscription()
        upstream.subscriber?.receive(subscription: subscription)
        XCTAssertEqual(subscription.log, ["cancel"], "the threading contract: nothing is asked for after cancel")
    }

    func testDropWithANegativeCountIsAcceptedUntilASubscriberAttaches() {
        let drop = Empty<Int, Never>().dropFirst(-1)
        XCTAssertEqual(drop.count, -1, "the trap comes at subscribe, as in Combine")
    }
}
