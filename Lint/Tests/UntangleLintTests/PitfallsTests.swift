// Examples/Pitfalls linted whole: exactly the findings each file's comments announce, nothing in the fixed halves.

import UntangleLint
import XCTest

final class PitfallsTests: XCTestCase {
    static let expected = [
        "AssignOnSelf.swift:10:16 assign-on-self",
        "BarrierQueueReaderWriter.swift:7:17 barrier-queue-reader-writer",
        "BlockingWaitForAsyncWork.swift:13:19 blocking-wait-for-async-work",
        "BlockingWaitForCallback.swift:16:19 blocking-wait-for-callback",
        "BlockingWaitInPool.swift:10:23 blocking-wait-in-pool",
        "BlockingWaitInPool.swift:19:11 blocking-wait-in-pool",
        "BlockingWaitOnMain.swift:16:19 blocking-wait-on-main",
        "BufferStateOutsideLock.swift:14:9 buffer-state-outside-lock",
        "CalloutUnderLock.swift:18:30 callout-under-lock",
        "CancellableSetFromClosure.swift:14:22 cancellable-set-from-closure",
        "DiscardedCancellable.swift:6:20 discarded-cancellable",
        "EagerFuture.swift:5:5 eager-future",
        "EagerPublisher.swift:7:9 eager-publisher",
        "MainQueueSync.swift:5:24 main-queue-sync",
        "MainQueueSyncGuarded.swift:12:35 main-queue-sync-guarded",
        "PublishedStaleRead.swift:15:14 published-stale-read",
        "ReceiveOnConcurrentQueue.swift:8:10 receive-on-concurrent-queue",
        "RxDisposeBagReassigned.swift:17:17 rx-disposebag-reassigned-across-threads",
        "RxSwift.swift:9:14 rx-subscribe-retain-cycle",
        "RxSwift.swift:14:14 rx-undisposed-subscription",
        "RxSwift.swift:16:14 rx-subscribe-on-main",
        "SinkRetainCycle.swift:12:14 sink-retain-cycle",
        "SubscribeOnTwice.swift:9:10 subscribe-on-twice",
        "SubscriptionStateOutsideLock.swift:14:31 subscription-state-outside-lock",
        "SyncOnCallerQueue.swift:8:15 sync-on-caller-queue",
        "SyncOnCurrentQueue.swift:10:34 sync-on-current-queue",
        "TaskRetainCycle.swift:10:23 task-retain-cycle",
        "UIUpdateOffMain.swift:14:14 ui-update-off-main",
        "UIUpdateUnprovenMain.swift:13:14 ui-update-unproven-main",
        "UnsynchronizedSubscription.swift:12:10 unsynchronized-subscription",
        "UnsynchronizedSubscription.swift:21:10 unsynchronized-subscription",
    ]

    func testPitfallsHaveExactlyTheAnnouncedFindings() {
        let folder = repositoryRoot + "/Examples/Pitfalls"
        // The folder's configuration turns on the rules that are off by default.
        let outcome = LintCommand.run(arguments: ["--quiet", "--config", folder + "/.untangle-lint.json", folder])
        let found = outcome.findings.map {
            "\(URL(fileURLWithPath: $0.path).lastPathComponent):\($0.line):\($0.column) \($0.ruleID)"
        }
        XCTAssertEqual(found, Self.expected)
        XCTAssertEqual(outcome.status, 1, "error-severity findings exit with status 1")
    }

    func testEveryRuleHasAPitfall() {
        let covered = Set(Self.expected.map { String($0.split(separator: " ").last!) })
        XCTAssertEqual(covered, Set(Rules.all.map(\.id)))
    }
}

final class RuleDocumentationTests: XCTestCase {
    /// Every rule has its DocC page, which opens with the rule's message, and the article lists it.
    func testEveryRuleHasADocPageListedInTheArticle() throws {
        let catalog = repositoryRoot + "/Lint/Sources/UntangleLint/UntangleLint.docc"
        let article = try String(contentsOfFile: catalog + "/UntangleLint.md", encoding: .utf8)
        for rule in Rules.all {
            let page = try String(contentsOfFile: catalog + "/Rules/\(rule.id).md", encoding: .utf8)
            let lines = page.split(separator: "\n", omittingEmptySubsequences: false)
            XCTAssertEqual(lines.first.map(String.init), "# \(rule.id)")
            let summary = rule.message.prefix(1).uppercased() + rule.message.dropFirst() + "."
            XCTAssertEqual(lines.dropFirst(2).first.map(String.init), summary, rule.id)
            XCTAssert(page.contains("Default severity: **\(rule.severity.rawValue)**"), rule.id)
            XCTAssert(article.contains("- <doc:\(rule.id)>"), "\(rule.id) is not listed in the article's topics")
        }
    }
}
