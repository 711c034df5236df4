import Foundation
import Untangle
import UntangleSync
import UntangleTesting
import XCTest

/// PublisherVerifier against deliberately broken publishers: each bug is caught, by the rule it breaks, with a clear
/// message; the fixed version passes every rule.
///
/// These are concurrency tests, but the class name deliberately does NOT end in ConcurrencyTests: the fixtures are
/// broken on purpose (a semaphore that deadlocks on itself, a lock held across delivery), and ThreadSanitizer would
/// rightly report the fixtures, not the verifier. The verifier's own thread safety is covered under TSan by
/// VerifierOverUntangleConcurrencyTests and by PlantedBugGalleryConcurrencyTests, whose planted bugs are
/// TSan-clean by construction.
final class BrokenPublisherTests: XCTestCase {
    /// Short timeouts for a broken publisher, which costs a few seconds per failing rule; the default, generous ones
    /// for the correct publisher, which takes milliseconds but must not time out on a loaded CI machine.
    private func verify(_ bug: PlayheadProgressPublisher.Bug, rules: [VerifierRule] = VerifierRule.allCases)
        -> VerificationReport
    {
        let options =
            bug == .none
            ? VerifierOptions(temperature: .hot) : VerifierOptions(temperature: .hot, timeout: 4, cancelTimeout: 1)
        return PublisherVerifier("playhead (\(bug))", options: options) {
            let player = FakePlayer()
            return VerifierFixture(
                PlayheadProgressPublisher(player: player, bug: bug), drive: { _ in player.tick() },
                finish: { player.end() })
        }.verify(rules: rules)
    }

    private func assertCaught(
        _ report: VerificationReport, by rule: VerifierRule, saying message: String,
        file: StaticString = #filePath, line: UInt = #line
    ) {
        guard let result = report.result(for: rule) else {
            return XCTFail("\(rule) did not run", file: file, line: line)
        }
        XCTAssertEqual(result.outcome, .failed, "\(report)", file: file, line: line)
        XCTAssertTrue(result.observed.contains(message), "\(result)", file: file, line: line)
        XCTAssertFalse(report.passed, file: file, line: line)
    }

    func testTheCorrectPlayheadPassesEveryRule() {
        let report = verify(.none)
        report.assertPassed { XCTFail($0) }
        XCTAssertEqual(report.results.count, VerifierRule.allCases.count)
        XCTAssertEqual(report.result(for: .concurrentDrive)?.outcome, .notApplicable, "ticks are serialized")
    }

    func testOverDeliveringIsCaught() {
        assertCaught(
            verify(.overDelivers, rules: [.demandStepwise]), by: .demandStepwise,
            saying: "value #2 arrived beyond demand: only max(1) requested in total")
    }

    func testEmittingAfterCompletionIsCaught() {
        assertCaught(
            verify(.emitsAfterCompletion, rules: [.completionOnce]), by: .completionOnce,
            saying: "arrived after the completion")
    }

    func testRacingDemandIsCaught() {
        assertCaught(
            verify(.unprotectedDemand, rules: [.concurrentRequests]), by: .concurrentRequests,
            saying: "concurrent request(_:) calls lost demand")
    }

    func testBlockingCancelIsCaught() {
        assertCaught(
            verify(.emitsUnderLock, rules: [.cancelWhileInsideSubscriber]), by: .cancelWhileInsideSubscriber,
            saying: "cancel() did not return within 1.0 s while another thread was inside receive(_:)")
    }

    func testCancelRacingDeliveryIsCaught() {
        let report = verify(
            .cancelRacesDelivery, rules: [.cancelStopsDelivery, .cancelRacingDelivery, .releaseAfterCancel])
        assertCaught(report, by: .cancelStopsDelivery, saying: "arrived after cancel() returned inside receive(_:)")
        assertCaught(
            report, by: .cancelRacingDelivery, saying: "signals arrived after cancel() returned on another thread")
        assertCaught(report, by: .releaseAfterCancel, saying: "the subscriber is still retained after cancel()")
    }

    func testUnboundedRecursionIsCaughtWithoutOverflowingTheStack() {
        let report = PublisherVerifier(options: VerifierOptions(length: .exactly(100_000), timeout: 60)) {
            RecursiveSequencePublisher(count: 100_000)
        }.verify(rules: [.requestFromInsideReceive, .unlimitedDemand])
        assertCaught(report, by: .requestFromInsideReceive, saying: "receive(_:) was entered 2 deep on one thread")
        XCTAssertEqual(report.result(for: .unlimitedDemand)?.outcome, .passed, "\(report)")
    }

    func testADeadlockIsReportedAsATimeoutInsteadOfHanging() {
        // The deadlocked rule costs the whole timeout; the other must pass within it, even on a loaded machine.
        let report = PublisherVerifier(options: VerifierOptions(length: .atLeast(10), timeout: 5)) {
            SemaphoreLockedPublisher()
        }.verify(rules: [.requestFromInsideReceive, .demandStepwise])
        XCTAssertEqual(report.result(for: .requestFromInsideReceive)?.outcome, .timedOut, "\(report)")
        XCTAssertTrue(report.result(for: .requestFromInsideReceive)?.observed.hasPrefix("timed out") ?? false)
        XCTAssertEqual(report.result(for: .demandStepwise)?.outcome, .passed, "\(report)")
        var message = ""
        report.assertPassed { message = $0 }
        XCTAssertTrue(message.contains("broke 1 rule(s)"), message)
    }
}
