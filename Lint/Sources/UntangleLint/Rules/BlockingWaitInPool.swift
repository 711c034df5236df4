// blocking-wait-in-pool: a semaphore or group wait inside GCD pool work, an `async` function or a `Task`; the rules
// sharing BlockingWaitVisitor: blocking waits on the main thread, behind a Task or a stored gate, or for a callback.

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

/// What syntax shows of a blocking wait, for the rules that share ``BlockingWaitVisitor``.
struct BlockingWait {
    /// In a main-bound type, or in work sent to the main queue.
    var mainBound: Bool
    /// Outside any closure, on a semaphore or group that the file signals in a callback.
    var waitsForCallback: Bool
    /// In a method of a type, on a semaphore or group that a `Task { }` of the same method signals: asynchronous work made
    /// synchronous by blocking the caller.
    var bridgesTask: Bool
    /// In a method of a type, on a semaphore or group that a callback in another of the file's methods signals: a stored gate
    /// every caller of this method waits behind.
    var waitsBehindGate: Bool
}

/// Shared by blocking-wait-on-main, blocking-wait-for-async-work and blocking-wait-for-callback: a semaphore or group
/// `wait()` (declared in the file, or created inline) that blocks the thread it is called on, outside pool work (which
/// blocking-wait-in-pool reports) and outside code that syntax places off the main thread.
package class BlockingWaitVisitor: LintVisitor {
    private var waitables: Set<String> = []
    /// The semaphores and groups the file signals (or leaves) inside a closure: a callback ends the wait.
    private var signalledInCallbacks: Set<String> = []
    /// Each such signal's enclosing function (nil at the top level) and whether its closure is a `Task`'s.
    private var callbackSignals: [(waitable: String, function: SyntaxIdentifier?, inTask: Bool)] = []

    override package class var visitedKinds: Set<SyntaxKind> { [.functionCallExpr, .sourceFile] }

    /// The message for a wait; nil when this rule does not report it.
    func message(for wait: BlockingWait) -> String? { nil }

    override package func visit(_ node: SourceFileSyntax) -> SyntaxVisitorContinueKind {
        waitables = context.declarations.names { binding in
            binding.value.hasPrefix("DispatchSemaphore(") || binding.value.hasPrefix("DispatchGroup(")
                || binding.type.hasPrefix("DispatchSemaphore") || binding.type.hasPrefix("DispatchGroup")
        }
        return .visitChildren
    }

    override package func visit(_ node: FunctionCallExprSyntax) -> SyntaxVisitorContinueKind {
        // Only these three names matter: the receiver's text is built for them alone (every call of the file passes).
        guard let name = node.calledName, name == "signal" || name == "leave" || name == "wait",
            let receiver = node.receiverText
        else { return .visitChildren }
        let waitable = lastComponent(receiver)
        if name == "signal" || name == "leave", waitables.contains(waitable) {
            let closures = node.enclosingClosures
            if !closures.isEmpty {
                signalledInCallbacks.insert(waitable)
                let inTask = closures.contains { closure in
                    guard let call = closure.enclosingCall else { return false }
                    return call.calledName == "Task" && call.receiver == nil
                }
                callbackSignals.append((waitable, node.enclosingFunction?.id, inTask))
            }
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

    /// Whether `function` declares a local (or parameter) named `name`: then a signal of the same name in another
    /// function is another semaphore, not a gate they share.
    private static func declaresLocal(_ name: String, in function: FunctionDeclSyntax?) -> Bool {
        guard let function else { return false }
        if function.signature.parameterClause.parameters.contains(where: {
            ($0.secondName ?? $0.firstName).text == name
        }) {
            return true
        }
        return function.body?.tokens(viewMode: .sourceAccurate).contains {
            $0.text == name && $0.parent?.is(IdentifierPatternSyntax.self) == true
        } == true
    }

    override package func visitPost(_ node: SourceFileSyntax) {
        // Signals may come after the wait in the file: decided once the walk has seen them all.
        for (call, mainBound, waitable) in pending {
            let function = call.enclosingFunction?.id
            let signals = callbackSignals.filter { $0.waitable == waitable }
            // A method of a type: free functions are mostly command-line tools' own main thread, blocked on purpose.
            let inMethod =
                call.enclosingFunction?.parent?.is(MemberBlockItemSyntax.self) == true && call.enclosingClosures.isEmpty
            let wait = BlockingWait(
                mainBound: mainBound,
                waitsForCallback: signalledInCallbacks.contains(waitable) && call.enclosingClosures.isEmpty,
                bridgesTask: inMethod && signals.contains { $0.inTask && $0.function == function },
                waitsBehindGate: inMethod && !Self.declaresLocal(waitable, in: call.enclosingFunction)
                    && signals.contains { $0.function != nil && $0.function != function })
            if let message = message(for: wait) { reportCall(call, message: message) }
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

    override func message(for wait: BlockingWait) -> String? {
        wait.mainBound ? rule.message : nil
    }
}

/// `func flushSync() { Task { await flush(); semaphore.signal() }; semaphore.wait() }` and `func makeContext() {
/// storeLoaded.wait(); ... }` where `loadStore()`'s callback signals `storeLoaded`: a synchronous method outside a
/// main-bound type that blocks its caller until asynchronous work of the same type ends. The caller is often the main
/// thread (a timer, a getter, app start-up), which freezes; if the awaited work needs the caller's thread or queue (the
/// main actor, the context's queue) it never ends: a deadlock. Reported, in files that are not tests (tests block
/// threads they own on purpose), when the semaphore or group is signalled by a `Task { }` of the same method, or by a
/// callback in another method of the file (a stored gate every caller waits behind). A wait on a callback of the same
/// method is blocking-wait-for-callback's (off by default).
package final class BlockingWaitForAsyncWork: BlockingWaitVisitor {
    package static let description = RuleDescription(
        id: "blocking-wait-for-async-work", severity: .warning,
        message:
            "a synchronous method waits on a semaphore/group that a Task or another method's callback signals: its "
            + "caller (often the main thread) blocks until that work ends, and deadlocks if the work needs the "
            + "caller's thread or queue; make the method async or take a completion handler",
        visitor: BlockingWaitForAsyncWork.self)

    override func message(for wait: BlockingWait) -> String? {
        guard !wait.mainBound, wait.bridgesTask || wait.waitsBehindGate, !context.isTestCode else { return nil }
        return rule.message
    }
}

/// `let semaphore = DispatchSemaphore(value: 0); api.load { ...; semaphore.signal() }; semaphore.wait()` outside a
/// main-bound type: an asynchronous API made synchronous. Whatever thread calls it blocks until the callback runs: the
/// main thread freezes if it is the caller, and if the callback is delivered on the caller's own queue (the main queue,
/// a Core Data context's queue) it never runs: a deadlock. Off by default: test code does this on purpose, on threads
/// it owns (measured on real trees, see the UntangleLint article). The waits blocking-wait-for-async-work reports
/// (signalled by a `Task` or by another method's callback, outside tests) are left to it.
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

    override func message(for wait: BlockingWait) -> String? {
        guard !wait.mainBound, wait.waitsForCallback else { return nil }
        if (wait.bridgesTask || wait.waitsBehindGate) && !context.isTestCode { return nil }
        return rule.message
    }
}
