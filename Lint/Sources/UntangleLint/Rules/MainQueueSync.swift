// main-queue-sync and sync-on-current-queue: `.sync` onto the queue the code is (or may be) already running on.

import SwiftSyntax

/// `DispatchQueue.main.sync`: deadlocks when called on the main thread (GCD traps or hangs). Skipped when the
/// enclosing function checks `Thread.isMainThread` or `dispatchPrecondition` (the usual guard).
package final class MainQueueSync: LintVisitor {
    package static let description = RuleDescription(
        id: "main-queue-sync", severity: .error,
        message:
            "DispatchQueue.main.sync deadlocks when already on the main thread; use DispatchQueue.main.async, or "
            + "check Thread.isMainThread first",
        visitor: MainQueueSync.self)

    override package class var visitedKinds: Set<SyntaxKind> { [.functionCallExpr] }

    override package func visit(_ node: FunctionCallExprSyntax) -> SyntaxVisitorContinueKind {
        guard node.calledName == "sync", let receiver = node.receiverText,
            receiver == "DispatchQueue.main" || receiver == ".main"
        else { return .visitChildren }
        let scope = node.enclosingFunction.map { Syntax($0) } ?? node.root
        let text = scope.description
        if text.contains("isMainThread") || text.contains("dispatchPrecondition") { return .visitChildren }
        reportCall(node)
        return .visitChildren
    }
}

/// `q.sync { }` inside a closure already running on `q` (`q.async { q.sync { } }`): on a serial queue a certain
/// deadlock. Syntax sees only the same receiver text; a concurrent `q` would not deadlock (but see the
/// barrier-queue-reader-writer rule).
package final class SyncOnCurrentQueue: LintVisitor {
    package static let description = RuleDescription(
        id: "sync-on-current-queue", severity: .error,
        message:
            "`.sync` on the queue this closure already runs on deadlocks (serial queue); call the work directly "
            + "or use .async",
        visitor: SyncOnCurrentQueue.self)

    override package class var visitedKinds: Set<SyntaxKind> { [.functionCallExpr] }

    override package func visit(_ node: FunctionCallExprSyntax) -> SyntaxVisitorContinueKind {
        guard node.calledName == "sync", let receiver = node.receiverText.map(Self.normalized),
            node.argument("flags") == nil
        else {
            return .visitChildren
        }
        let onSameQueue = node.enclosingClosures.contains { closure in
            guard let call = closure.enclosingCall, let name = call.calledName else { return false }
            return ["async", "sync", "asyncAfter"].contains(name) && call.receiverText.map(Self.normalized) == receiver
                && call.argument("flags") == nil
        }
        if onSameQueue { reportCall(node) }
        return .visitChildren
    }

    /// `self.queue` and `queue` name the same queue.
    private static func normalized(_ receiver: String) -> String {
        receiver.hasPrefix("self.") ? String(receiver.dropFirst(5)) : receiver
    }
}
