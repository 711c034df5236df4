// barrier-queue-reader-writer: the "thread-safe" property built on a concurrent queue, `.sync` reads and `.barrier`
// writes.

import SwiftSyntax

/// A queue used with both `.async(flags: .barrier)` (or `.sync(flags: .barrier)`) and plain `.sync` in one file: a
/// reader/writer on a concurrent queue. Each read blocks a thread on GCD's pool; when the pool is starved (more
/// blocked readers than threads, or readers inside pool work) the barrier never runs and everything deadlocks. The
/// fix is a lock: `LockedBox`/`Lock` (UntangleSync), or `OSAllocatedUnfairLock`. The finding points at the queue's
/// declaration when the file declares it (`let queue = DispatchQueue(..., attributes: .concurrent)`: where the fix
/// goes), else at the first barrier; a queue the file declares serial (no `.concurrent`) is no reader/writer (its
/// barriers are no-ops) and is not reported.
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
        guard let name = node.calledName, name == "sync" || name == "async", let text = node.receiverText else {
            return .visitChildren
        }
        // `self.queue` and `queue` name the same queue.
        let queue = text.hasPrefix("self.") ? String(text.dropFirst(5)) : text
        if let flags = node.argument("flags"), flags.trimmedDescription.contains("barrier") {
            if barrierCalls[queue] == nil { barrierCalls[queue] = node }
        } else if name == "sync" {
            readers.insert(queue)
        }
        return .visitChildren
    }

    override package func visitPost(_ node: SourceFileSyntax) {
        let found = barrierCalls.filter { readers.contains($0.key) }
        guard !found.isEmpty else { return }
        // Only a file with a reader/writer looks for the queues' declarations (one more walk, rarely).
        let finder = QueueDeclarationFinder(names: Set(found.keys))
        finder.walk(node)
        for (queue, call) in found.sorted(by: { $0.value.position < $1.value.position }) {
            if let declaration = finder.declarations[queue] {
                if declaration.concurrent { report(declaration.name) }
            } else {
                reportCall(call)
            }
        }
    }
}

/// The file's `DispatchQueue(...)` variables of the given names: name → the name's token in the first declaration, and
/// whether that queue is concurrent.
private final class QueueDeclarationFinder: SyntaxVisitor {
    let names: Set<String>
    var declarations: [String: (name: TokenSyntax, concurrent: Bool)] = [:]

    init(names: Set<String>) {
        self.names = names
        super.init(viewMode: .sourceAccurate)
    }

    override func visit(_ node: PatternBindingSyntax) -> SyntaxVisitorContinueKind {
        guard let pattern = node.pattern.as(IdentifierPatternSyntax.self), names.contains(pattern.identifier.text),
            declarations[pattern.identifier.text] == nil,
            let value = node.initializer?.value.trimmedDescription, value.hasPrefix("DispatchQueue(")
        else { return .visitChildren }
        declarations[pattern.identifier.text] = (pattern.identifier, value.contains("concurrent"))
        return .visitChildren
    }
}
