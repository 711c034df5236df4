import Foundation
import Untangle
import UntangleSync
import UntangleTesting
import XCTest

/// The planted-bug gallery: one hand-written subject (`PlantedBugSubject`) with each classic mistake planted in
/// turn, verified many times over with the options a new user writes for a subject
/// (`VerifierOptions(temperature: .hot, concurrentDrive: true)`). Each bug must be caught by the rule that names it
/// in at least `required` of `runs` runs, and the correct subject must pass every rule in every run. The tests count
/// detections; they measure no time.
///
/// The class name ends in ConcurrencyTests, so CI runs it under ThreadSanitizer: the planted races are logical (a
/// read and a write in two critical sections, a delivery that skips the queue), never memory races, so what TSan
/// checks here is the verifier's own code.
final class PlantedBugGalleryConcurrencyTests: XCTestCase {
    static let runs = 20
    static let required = 19

    /// The options `Testing.md` shows for a subject; everything else default.
    static let subjectOptions = VerifierOptions(temperature: .hot, concurrentDrive: true)

    private func verifier(_ bug: PlantedBugSubject.Bug, options: VerifierOptions = subjectOptions)
        -> PublisherVerifier<PlantedBugSubject>
    {
        PublisherVerifier("planted \(bug.rawValue)", options: options) {
            let subject = PlantedBugSubject(bug: bug)
            return VerifierFixture(subject, drive: { subject.send($0) }, finish: { subject.finish() })
        }
    }

    /// Runs `rule` `runs` times against the planted `bug`; asserts it failed at least `required` times, each time
    /// saying `message` (or one of `alternatives`). Returns the number of detections.
    @discardableResult
    private func assertCaught(
        _ bug: PlantedBugSubject.Bug, by rule: VerifierRule, saying message: String, or alternatives: [String] = [],
        options: VerifierOptions = subjectOptions, file: StaticString = #filePath, line: UInt = #line
    ) -> Int {
        let verifier = verifier(bug, options: options)
        var caught = 0
        var missed: VerifierRuleResult?
        for _ in 0..<Self.runs {
            guard let result = verifier.verify(rules: [rule]).results.first else {
                XCTFail("\(rule) did not run", file: file, line: line)
                return caught
            }
            if result.outcome == .failed {
                caught += 1
                XCTAssertTrue(
                    ([message] + alternatives).contains { result.observed.contains($0) }, "\(result)", file: file,
                    line: line)
            } else {
                missed = result
            }
        }
        print("gallery: \(bug) caught by \(rule.rawValue) in \(caught) of \(Self.runs) runs")
        XCTAssertGreaterThanOrEqual(
            caught, Self.required,
            "\(bug) caught by \(rule) in \(caught) of \(Self.runs) runs; a miss: \(missed.map { "\($0)" } ?? "-")",
            file: file, line: line)
        return caught
    }

    func testMoreThanDemandedIsCaughtByDemandStepwise() {
        assertCaught(
            .moreThanDemanded, by: .demandStepwise,
            saying: "value #1 arrived beyond demand: only")
    }

    func testValueAfterCancelIsCaughtByCancelStopsDelivery() {
        assertCaught(
            .valueAfterCancel, by: .cancelStopsDelivery, saying: "arrived after cancel() returned inside receive(_:)")
    }

    func testDoubleCompletionIsCaughtByCompletionOnce() {
        assertCaught(.doubleCompletion, by: .completionOnce, saying: "a second receive(completion:) (finished)")
    }

    func testValueAfterCompletionIsCaughtByCompletionOnce() {
        assertCaught(.valueAfterCompletion, by: .completionOnce, saying: "arrived after the completion")
    }

    /// A lost increment shows as missing values, a lost decrement (a request's write overwriting a delivery's) as
    /// a value beyond demand.
    func testUnguardedDemandCounterIsCaughtByConcurrentRequests() {
        assertCaught(
            .unguardedDemand, by: .concurrentRequests, saying: "concurrent request(_:) calls lost demand",
            or: ["arrived beyond demand"])
    }

    func testSecondSubscriptionIsCaughtBySubscriptionFirstAndOnce() {
        assertCaught(
            .secondSubscription, by: .subscriptionFirstAndOnce,
            saying: "a second receive(subscription:) (the extra subscription was cancelled)")
    }

    func testUnserializedDeliveryIsCaughtByConcurrentDrive() {
        assertCaught(
            .unserializedDelivery, by: .concurrentDrive, saying: "two threads inside the subscriber at once")
    }

    func testUnserializedDeliveryIsCaughtByConcurrentRequests() {
        assertCaught(
            .unserializedDelivery, by: .concurrentRequests, saying: "two threads inside the subscriber at once")
    }

    /// A cancel that waits for the delivery in progress is reported after `cancelTimeout` (10 s by default, generous
    /// for a loaded machine); half a second keeps twenty runs short.
    func testLockHeldAcrossReceiveAndTakenInCancelIsCaughtByCancelWhileInsideSubscriber() {
        var options = Self.subjectOptions
        options.cancelTimeout = 0.5
        assertCaught(
            .lockHeldAcrossReceive, by: .cancelWhileInsideSubscriber,
            saying: "cancel() did not return within 0.5 s while another thread was inside receive(_:)",
            options: options)
    }

    /// No false alarms: the correct subject passes the concurrency rules in every run, and every rule once.
    func testTheCorrectSubjectPassesEveryRun() {
        let verifier = verifier(.none)
        let start = Date()
        verifier.verify().assertPassed { XCTFail($0) }
        print("gallery: a default verification of the correct subject took \(Date().timeIntervalSince(start)) s")
        for _ in 0..<Self.runs {
            verifier.verify(rules: [.concurrentDrive, .concurrentRequests]).assertPassed { XCTFail($0) }
        }
    }

    /// One violation repeated on every value is reported once, with its count and the first few occurrences.
    func testARepeatedViolationIsReportedOnceWithACount() throws {
        var options = Self.subjectOptions
        options.concurrencyBudget = 0
        let report = PublisherVerifier("no demand check", options: options) {
            let subject = PlantedBugSubject(bug: .moreThanDemanded)
            return VerifierFixture(subject, drive: { subject.send($0) }, finish: { subject.finish() })
        }.verify(rules: [.demandStepwise])
        let observed = try XCTUnwrap(report.results.first?.observed)
        XCTAssertTrue(observed.hasPrefix("a value beyond demand: "), observed)
        XCTAssertTrue(observed.contains(" times (first 3: value #1 arrived beyond demand"), observed)
        XCTAssertEqual(observed.components(separatedBy: "arrived beyond demand").count - 1, 3, observed)
        XCTAssertLessThan(observed.count, 1_000, observed)
    }
}
