// barrier-queue-reader-writer: the "thread-safe" property built on a concurrent queue, `.sync` reads and `.barrier`
// writes.

import SwiftSyntax

/// A queue used with both `.async(flags: .barrier)` (or `.sync(flags: .barrier)`) and plain `.sync` in one file: a
/// reader/writer on a concurrent queue. Each read blocks a thread on GCD's pool; when the pool is starved (more
/// blocked readers than threads, or readers inside pool work) the barrier never runs and everything deadlocks. The
/// fix is a lock: `LockedBox`/`Lock` (UntangleSync), or `OSAllocatedUnfairLock`.
package final class BarrierQueueReaderWriter: LintVisitor {
    package static let description = RuleDescription(
        id: "barrier-queue-reader-writer", severity: .warning,
        message:
            "reader/writer built on a concurrent queue (.sync reads, .barrier writes): every read blocks a pool "
            + "thread and a starved pool deadlocks; use a lock (UntangleSync LockedBox/Lock) instead",
        visitor: BarrierQueueReaderWriter.self)

    private var barrierCalls: [String: FunctionCallExprSyntax] = [:]
    private var readers: Set<String> = []

    override package class var visitedKinds: Set<SyntaxKind> { [.functionCallExpr, .sourceFile] }

    override package func visit(_ node: FunctionCallExprSyntax) -> SyntaxVisitorContinueKind {
        guard let name = node.calledName, name == "sync" || name == "async", let queue = node.receiverText else {
            return .visitChildren
        }
        if let flags = node.argument("flags"), flags.trimmedDescription.contains("barrier") {
            if barrierCalls[queue] == nil { barrierCalls[queue] = node }
        } else if name == "sync" {
            readers.insert(queue)
        }
        return .visitChildren
    }

    override package func visitPost(_ node: SourceFileSyntax) {
        for (queue, call) in barrierCalls.sorted(by: { $0.value.position < $1.value.position })
        where readers.contains(queue) {
            reportCall(call)
        }
    }
}
