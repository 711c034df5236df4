import Untangle
import UntangleTesting
import XCTest

final class MarblesTests: XCTestCase {
    let values: [Character: Int] = ["a": 1, "b": 2, "c": 3]

    func testParsesFramesValuesAndCompletion() throws {
        let timeline: [TimedEvent<Int, Never>] = try Marbles.parse("-a-b--c|", values: values)
        XCTAssertEqual(
            timeline,
            [
                .value(1, at: .seconds(1)), .value(2, at: .seconds(3)), .value(3, at: .seconds(6)),
                .finished(at: .seconds(7)),
            ])
    }

    func testGroupsAreSimultaneousAndTakeOneFrame() throws {
        let timeline: [TimedEvent<Int, TestFailure>] = try Marbles.parse(
            "a(bc)-#", values: values, error: TestFailure(), frame: .milliseconds(10))
        XCTAssertEqual(
            timeline,
            [
                .value(1, at: .zero), .value(2, at: .milliseconds(10)), .value(3, at: .milliseconds(10)),
                .failure(TestFailure(), at: .milliseconds(30)),
            ])
    }

    func testSubscriptionPointIsTimeZero() throws {
        let timeline: [TimedEvent<Int, Never>] = try Marbles.parse("a-^-b |", values: values)
        XCTAssertEqual(
            timeline, [.value(1, at: .seconds(-2)), .value(2, at: .seconds(2)), .finished(at: .seconds(3))])
    }

    func testSyntaxErrorsSayWhatAndWhere() {
        func error(_ diagram: String, subscriptionPoint: Bool = true) -> String? {
            do {
                let _: [TimedEvent<Int, Never>] = try Marbles.parse(
                    diagram, values: values, allowsSubscriptionPoint: subscriptionPoint)
                return nil
            } catch {
                return (error as? MarbleSyntaxError)?.description
            }
        }
        XCTAssertEqual(error("-a-x"), "\"-a-x\": 'x' is not in the values dictionary at offset 3")
        XCTAssertEqual(error("-(a"), "\"-(a\": unclosed group at offset 1")
        XCTAssertEqual(error("(a(b))"), "\"(a(b))\": a group inside the group opened at offset 0 at offset 2")
        XCTAssertEqual(error("a)"), "\"a)\": ')' without '(' at offset 1")
        XCTAssertEqual(error("-#"), "\"-#\": '#' (failure) but no error was given at offset 1")
        XCTAssertEqual(error("a|b"), "\"a|b\": 'b' after the completion at offset 2")
        XCTAssertEqual(error("^-^"), "\"^-^\": a second '^' at offset 2")
        XCTAssertEqual(
            error("-^a", subscriptionPoint: false),
            "\"-^a\": '^' (subscription point) is only for hot publishers at offset 1")
        XCTAssertNil(error("a|--"))
    }

    func testColdPublisherFromMarblesAndRenderedOutputRoundTrip() throws {
        let scheduler = TestScheduler()
        let input = try scheduler.createColdPublisher(marbles: "-a-b--c|", values: values)
        let subscriber = TestSubscriber<Int, Never>(scheduler: scheduler)
        let start = scheduler.now
        input.map { $0 * 10 }.subscribe(subscriber)
        scheduler.run()
        XCTAssertEqual(subscriber.marbles(from: start, values: ["x": 10, "y": 20, "z": 30]), "-x-y--z|")
        XCTAssertEqual(subscriber.marbles(from: start) { Character(String($0 / 10)) }, "-1-2--3|")
    }

    func testMergeOfTwoColdPublishersRendersSimultaneousValuesAsAGroup() throws {
        let scheduler = TestScheduler()
        let first = try scheduler.createColdPublisher(marbles: "a--c|", values: values)
        let second = try scheduler.createColdPublisher(marbles: "-b-(c)|", values: values)
        let subscriber = TestSubscriber<Int, Never>(scheduler: scheduler)
        let start = scheduler.now
        first.merge(with: second).subscribe(subscriber)
        scheduler.run()
        XCTAssertEqual(subscriber.marbles(from: start, values: values), "ab-(cc)|")
    }

    func testHotPublisherFromMarblesSkipsThePastAndFails() throws {
        let scheduler = TestScheduler()
        let input = try scheduler.createHotPublisher(
            marbles: "a-^-b-#", values: values, error: TestFailure())
        let subscriber = TestSubscriber<Int, TestFailure>(scheduler: scheduler)
        let start = scheduler.now
        input.subscribe(subscriber)
        scheduler.run()
        // `^` is frame zero of the output: "a-^-b-#" seen from the subscription is "--b-#".
        XCTAssertEqual(subscriber.marbles(from: start, values: values), "--b-#")
        XCTAssertEqual(subscriber.completion, .failure(TestFailure()))
    }

    func testUnknownValuesRenderAsQuestionMarks() throws {
        let scheduler = TestScheduler()
        let subscriber = TestSubscriber<Int, Never>(scheduler: scheduler)
        let start = scheduler.now
        try scheduler.createColdPublisher(marbles: "ab|", values: values).map { $0 + 2 }.subscribe(subscriber)
        scheduler.run()
        XCTAssertEqual(subscriber.marbles(from: start, values: values), "c?|")
    }
}
