// main-queue-sync and sync-on-current-queue: `.sync` onto the queue the code is (or may be) already running on.

import SwiftSyntax

/// `DispatchQueue.main.sync`: deadlocks when called on the main thread (GCD traps or hangs). Skipped when the
/// enclosing function checks `Thread.isMainThread` or `dispatchPrecondition` (the usual guard): the guarded form is
/// main-queue-sync-guarded's.
package final class MainQueueSync: LintVisitor {
    package static let description = RuleDescription(
        id: "main-queue-sync", severity: .error,
        message:
            "DispatchQueue.main.sync deadlocks when already on the main thread; use DispatchQueue.main.async, or "
            + "check Thread.isMainThread first",
        visitor: MainQueueSync.self)

    override package class var visitedKinds: Set<SyntaxKind> { [.functionCallExpr] }

    override package func visit(_ node: FunctionCallExprSyntax) -> SyntaxVisitorContinueKind {
        if node.isMainQueueSync, !node.checksForMainThread { reportCall(node) }
        return .visitChildren
    }
}

/// `DispatchQueue.main.sync` behind a `Thread.isMainThread` check whose result the caller waits for
/// (`return DispatchQueue.main.sync { read() }`, `let value = DispatchQueue.main.sync { ... }`): it no longer traps
/// on the main thread, but it makes a getter or a helper that any thread calls wait for the main thread, which
/// deadlocks whenever the main thread is itself waiting for that thread (on a lock, a `queue.sync`, a semaphore, a
/// `static let` or `lazy` initializer the other thread is running). Real fixes (DuckDuckGo's debug parameters,
/// swift-dependencies' `mainSync`, DevCycle's `variable(key:)`) replace it with `async` and a completion, or
/// `@MainActor` and `await`. A guarded `main.sync` whose result nobody uses (a timer scheduled or a notification posted
/// on main) is not reported: it could be `async`, but whether the wait matters is decided by its callers, elsewhere.
package final class MainQueueSyncGuarded: LintVisitor {
    package static let description = RuleDescription(
        id: "main-queue-sync-guarded", severity: .warning,
        message:
            "DispatchQueue.main.sync off the main thread (behind a Thread.isMainThread check) deadlocks when the main "
            + "thread is waiting for this thread (a lock, a queue.sync, a semaphore, a static initializer); hop with "
            + "DispatchQueue.main.async and a completion, or make the caller @MainActor",
        visitor: MainQueueSyncGuarded.self)

    override package class var visitedKinds: Set<SyntaxKind> { [.functionCallExpr] }

    override package func visit(_ node: FunctionCallExprSyntax) -> SyntaxVisitorContinueKind {
        if node.isMainQueueSync, node.checksForMainThread, node.resultIsUsed { reportCall(node) }
        return .visitChildren
    }
}

extension FunctionCallExprSyntax {
    /// Whether the call's value goes somewhere: returned (`return try main.sync { }`), bound (`let x = ...`) or
    /// assigned (`x = ...`).
    fileprivate var resultIsUsed: Bool {
        var node = Syntax(self)
        while let parent = node.parent, parent.is(TryExprSyntax.self) || parent.is(AwaitExprSyntax.self) {
            node = parent
        }
        guard let parent = node.parent else { return false }
        if parent.is(ReturnStmtSyntax.self) || parent.is(InitializerClauseSyntax.self) { return true }
        if let list = parent.as(ExprListSyntax.self), list.count == 3, list.last?.id == node.id {
            return list[list.index(after: list.startIndex)].is(AssignmentExprSyntax.self)
        }
        return false
    }

    /// `DispatchQueue.main.sync`, `.main.sync`, and inside `extension DispatchQueue` also `Self.main.sync` and
    /// `main.sync`.
    fileprivate var isMainQueueSync: Bool {
        guard calledName == "sync", let receiver = receiverText else { return false }
        if receiver == "DispatchQueue.main" || receiver == ".main" { return true }
        guard receiver == "Self.main" || receiver == "main" else { return false }
        return ancestors.contains {
            $0.as(ExtensionDeclSyntax.self)?.extendedType.trimmedDescription == "DispatchQueue"
        }
    }

    /// Whether the enclosing function, initializer or accessor (else the file) mentions the main thread: a
    /// `Thread.isMainThread` or `dispatchPrecondition` check, or an assertion in the block that says the code around
    /// it runs off the main thread.
    fileprivate var checksForMainThread: Bool {
        let scope =
            ancestors.first {
                $0.is(FunctionDeclSyntax.self) || $0.is(InitializerDeclSyntax.self) || $0.is(AccessorDeclSyntax.self)
                    || $0.is(AccessorBlockSyntax.self)
            } ?? root
        let text = scope.description
        return text.contains("isMainThread") || text.contains("dispatchPrecondition")
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
