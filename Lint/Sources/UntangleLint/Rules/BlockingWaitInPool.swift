// blocking-wait-in-pool: a semaphore or group wait inside GCD pool work, an `async` function or a `Task`.

import SwiftSyntax

/// `DispatchSemaphore.wait()` / `DispatchGroup.wait()` where blocking starves a shared pool: inside work submitted to
/// a global queue or `concurrentPerform` (each blocked item makes GCD start another thread: thread explosion, and a
/// deadlock once the pool's limit is reached), inside an `async` function or a `Task` (the cooperative pool has one
/// thread per core: a few waits stop all of Swift concurrency). Worse in a loop. Syntax recognises the semaphore or
/// group by its declaration in the same file (`DispatchSemaphore(...)`, `DispatchGroup()`, or a type annotation).
/// Core Data's `performAndWait` in work submitted to a global queue blocks the pool thread the same way until the
/// context's queue runs the block: for a main-queue context, a `DispatchQueue.main.sync` from the pool, which deadlocks
/// when the main thread waits for this work. (In an `async` function or a `Task` it is not reported: a private
/// context's brief wait there is common, and `await context.perform` is the modern spelling, not a fix of a hang.)
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
        if node.calledName == "performAndWait", node.receiver != nil, node.closures.count == 1,
            node.enclosingClosures.contains(where: { $0.enclosingCall?.submitsToGlobalQueue == true })
        {
            reportCall(
                node,
                message:
                    "performAndWait blocks a thread of GCD's global pool until the context's queue runs the block (for a main-queue context, a main.sync from the pool: a "
                    + "deadlock when the main thread waits for this work); use perform with a completion, or await "
                    + "context.perform")
            return .visitChildren
        }
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

/// Shared by blocking-wait-on-main and blocking-wait-for-callback: a semaphore or group `wait()` (declared in the
/// file, or created inline) that blocks the thread it is called on, outside pool work (which blocking-wait-in-pool
/// reports) and outside code that syntax places off the main thread.
package class BlockingWaitVisitor: LintVisitor {
    private var waitables: Set<String> = []
    /// The semaphores and groups the file signals (or leaves) inside a closure: a callback ends the wait.
    private var signalledInCallbacks: Set<String> = []

    override package class var visitedKinds: Set<SyntaxKind> { [.functionCallExpr, .sourceFile] }

    /// The message for a wait; nil when this rule does not report it.
    func message(mainBound: Bool, waitsForCallback: Bool) -> String? { nil }

    override package func visit(_ node: SourceFileSyntax) -> SyntaxVisitorContinueKind {
        waitables = context.declarations.names { binding in
            binding.value.hasPrefix("DispatchSemaphore(") || binding.value.hasPrefix("DispatchGroup(")
                || binding.type.hasPrefix("DispatchSemaphore") || binding.type.hasPrefix("DispatchGroup")
        }
        return .visitChildren
    }

    override package func visit(_ node: FunctionCallExprSyntax) -> SyntaxVisitorContinueKind {
        guard let name = node.calledName, let receiver = node.receiverText else { return .visitChildren }
        let waitable = lastComponent(receiver)
        if (name == "signal" || name == "leave"), waitables.contains(waitable), !node.enclosingClosures.isEmpty {
            signalledInCallbacks.insert(waitable)
        }
        guard name == "wait", node.parent?.is(AwaitExprSyntax.self) != true, waitables.contains(waitable),
            node.argumentLabels.allSatisfy({ $0 == "timeout" || $0 == "wallTimeout" })
        else { return .visitChildren }
        // Pool work and async functions are blocking-wait-in-pool's; closures that run off the main thread block no
        // main thread.
        if node.enclosingClosures.contains(where: { closure in
            guard let call = closure.enclosingCall else { return false }
            return call.spawnsConcurrentWork && !(call.receiverText?.contains("main") ?? false)
        }) || node.runsOffMain(context.declarations) {
            return .visitChildren
        }
        if let function = node.enclosingFunction, function.signature.effectSpecifiers?.asyncSpecifier != nil {
            return .visitChildren
        }
        let onMainQueue = node.enclosingClosures.contains { $0.enclosingCall?.receiverText == "DispatchQueue.main" }
        pending.append((node, onMainQueue || node.inMainBoundType(context.declarations), waitable))
        return .visitChildren
    }

    private var pending: [(FunctionCallExprSyntax, Bool, String)] = []

    override package func visitPost(_ node: SourceFileSyntax) {
        // Signals may come after the wait in the file: decided once the walk has seen them all.
        for (call, mainBound, waitable) in pending {
            let waitsForCallback = signalledInCallbacks.contains(waitable) && call.enclosingClosures.isEmpty
            if let message = message(mainBound: mainBound, waitsForCallback: waitsForCallback) {
                reportCall(call, message: message)
            }
        }
    }
}

/// `semaphore.wait()` in a view, a controller, a view model or other main-bound type, or in work sent to the main
/// queue: the main thread stops until another thread signals (the UI freezes; the watchdog kills the app after some
/// seconds), and if the signal is to come from work queued on the main thread, it never comes: a deadlock.
package final class BlockingWaitOnMain: BlockingWaitVisitor {
    package static let description = RuleDescription(
        id: "blocking-wait-on-main", severity: .warning,
        message:
            "semaphore/group wait on the main thread (in a main-bound type or main-queue work) freezes the UI, and "
            + "deadlocks if the signal needs the main thread; use a completion handler or `await`",
        visitor: BlockingWaitOnMain.self)

    override func message(mainBound: Bool, waitsForCallback: Bool) -> String? {
        mainBound ? rule.message : nil
    }
}

/// `let semaphore = DispatchSemaphore(value: 0); api.load { ...; semaphore.signal() }; semaphore.wait()` outside a
/// main-bound type: an asynchronous API made synchronous. Whatever thread calls it blocks until the callback runs: the
/// main thread freezes if it is the caller, and if the callback is delivered on the caller's own queue (the main queue,
/// a Core Data context's queue) it never runs: a deadlock. Off by default: test code does this on purpose, on threads
/// it owns (measured on real trees, see the UntangleLint article).
package final class BlockingWaitForCallback: BlockingWaitVisitor {
    package static let description = RuleDescription(
        id: "blocking-wait-for-callback", severity: .warning,
        message:
            "waits on a semaphore/group that a callback signals: the calling thread blocks until the callback runs "
            + "(the UI freezes when that is the main thread, and it deadlocks when the callback needs the caller's "
            + "queue); pass a completion handler or use `await` instead",
        enabledByDefault: false,
        // Off by default: tests bridge callbacks this way on purpose (see the UntangleLint article).
        visitor: BlockingWaitForCallback.self)

    override func message(mainBound: Bool, waitsForCallback: Bool) -> String? {
        !mainBound && waitsForCallback ? rule.message : nil
    }
}
