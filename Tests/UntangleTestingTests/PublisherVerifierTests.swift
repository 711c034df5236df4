import Untangle
import UntangleSync
import UntangleTesting
import XCTest

final class PublisherVerifierTests: XCTestCase {
    func testReportListsEveryRuleByNameInOrder() {
        let started = LockedBox<[String]>([])
        let options = VerifierOptions(
            length: .exactly(3), onRuleStart: { name in started.withLock { $0.append(name) } })
        let report = PublisherVerifier("three", options: options) { [1, 2, 3].publisher }.verify()
        XCTAssertTrue(report.passed, "\(report)")
        XCTAssertEqual(report.results.map(\.rule), VerifierRule.allCases)
        XCTAssertEqual(started.withLock { $0 }, VerifierRule.allCases.map { "three: \($0)" })
        let lines = report.description.split(separator: "\n")
        XCTAssertEqual(lines.first, "PublisherVerifier: three")
        XCTAssertEqual(
            lines[2],
            "  PASS never more values than demanded (request 0, then 1, 1, 2): no request: 0 value(s), "
                + "request(1): 1 value(s), request(1): 2 value(s), request(2): 3 value(s)")
        var failure: String?
        report.assertPassed { failure = $0 }
        XCTAssertNil(failure)
    }

    func testRulesThatDoNotApplySayWhy() {
        let report = PublisherVerifier(options: VerifierOptions(length: .unbounded)) {
            Empty<Int, Never>(completeImmediately: false)
        }.verify(rules: [.completionOnce, .cancelStopsDelivery, .concurrentDrive, .releaseAfterCancel])
        XCTAssertEqual(report.results.map(\.outcome), [.notApplicable, .notApplicable, .notApplicable, .passed])
        XCTAssertEqual(
            report.result(for: .completionOnce)?.observed,
            "the publisher does not promise to complete (length .atLeast, or no finish closure)")
        XCTAssertTrue(report.passed)
    }

    func testAPromiseNotKeptFails() {
        let report = PublisherVerifier(options: VerifierOptions(length: .exactly(4), timeout: 2)) {
            [1, 2, 3].publisher
        }.verify(rules: [.unlimitedDemand])
        XCTAssertEqual(report.results.map(\.outcome), [.failed])
        XCTAssertTrue(
            report.results[0].observed.hasPrefix("3 value(s) arrived; exactly 4 were promised"),
            report.results[0].observed)
    }

    func testTheDefaultNameIsThePublisherType() {
        let report = PublisherVerifier(options: VerifierOptions(length: .exactly(1))) { Just(1) }
            .verify(rules: [.subscriptionFirstAndOnce])
        XCTAssertEqual(report.subject, "Just<Int>")
    }
}
