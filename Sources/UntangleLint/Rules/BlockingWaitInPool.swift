// blocking-wait-in-pool: a semaphore or group wait inside GCD pool work, an `async` function or a `Task`.

import SwiftSyntax

/// `DispatchSemaphore.wait()` / `DispatchGroup.wait()` where blocking starves a shared pool: inside work submitted to
/// a global queue or `concurrentPerform` (each blocked item makes GCD start another thread: thread explosion, and a
/// deadlock once the pool's limit is reached), inside an `async` function or a `Task` (the cooperative pool has one
/// thread per core: a few waits stop all of Swift concurrency). Worse in a loop. Syntax recognises the semaphore or
/// group by its declaration in the same file (`DispatchSemaphore(...)`, `DispatchGroup()`, or a type annotation).
package final class BlockingWaitInPool: LintVisitor {
    package static let description = RuleDescription(
        id: "blocking-wait-in-pool", severity: .error,
        message:
            "semaphore/group wait blocks a thread of a shared pool (GCD global queue or Swift concurrency): the pool "
            + "starves or explodes; use a completion handler, `await`, or DispatchGroup.notify",
        visitor: BlockingWaitInPool.self)

    private var waitables: Set<String> = []

    override package class var visitedKinds: Set<SyntaxKind> { [.functionCallExpr, .sourceFile] }

    override package func visit(_ node: SourceFileSyntax) -> SyntaxVisitorContinueKind {
        waitables = context.declarations.names { binding in
            binding.value.hasPrefix("DispatchSemaphore(") || binding.value.hasPrefix("DispatchGroup(")
                || binding.type.hasPrefix("DispatchSemaphore") || binding.type.hasPrefix("DispatchGroup")
        }
        return .visitChildren
    }

    override package func visit(_ node: FunctionCallExprSyntax) -> SyntaxVisitorContinueKind {
        // An awaited `wait()` (AsyncSemaphore and the like) suspends instead of blocking.
        guard node.calledName == "wait", node.parent?.is(AwaitExprSyntax.self) != true,
            let receiver = node.receiverText,
            node.argumentLabels.allSatisfy({ $0 == "timeout" || $0 == "wallTimeout" })
        else { return .visitChildren }
        guard
            waitables.contains(lastComponent(receiver)) || receiver.hasPrefix("DispatchSemaphore(")
                || receiver.hasPrefix("DispatchGroup(")
        else { return .visitChildren }
        if let message = poolContext(of: node) { reportCall(node, message: message) }
        return .visitChildren
    }

    private func poolContext(of node: FunctionCallExprSyntax) -> String? {
        for closure in node.enclosingClosures {
            guard let call = closure.enclosingCall else { continue }
            if call.submitsToGlobalQueue {
                let inLoop = Syntax(call).ancestors.contains {
                    $0.is(ForStmtSyntax.self) || $0.is(WhileStmtSyntax.self) || $0.is(RepeatStmtSyntax.self)
                }
                return inLoop
                    ? "blocking wait in work submitted to a global queue in a loop: each blocked item makes GCD "
                        + "start another thread (thread explosion, then deadlock at the pool limit); use "
                        + "concurrentPerform without waits, a completion handler, or DispatchGroup.notify"
                    : rule.message
            }
            if call.calledName == "Task" || (call.calledName == "detached" && call.receiverText == "Task") {
                return "blocking wait inside a Task stops a cooperative-pool thread (one per core): use `await` "
                    + "(withCheckedContinuation) instead of a semaphore/group wait"
            }
        }
        if let function = node.enclosingFunction, function.signature.effectSpecifiers?.asyncSpecifier != nil,
            node.enclosingClosures.isEmpty
        {
            return "blocking wait inside an async function stops a cooperative-pool thread (one per core): use "
                + "`await` (withCheckedContinuation) instead of a semaphore/group wait"
        }
        return nil
    }
}
