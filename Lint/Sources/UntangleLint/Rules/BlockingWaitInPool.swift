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
    /// What the walk learned about one wait.
    struct Wait {
        /// In a main-bound type or main-queue work.
        var mainBound: Bool
        /// Outside closures, on a semaphore or group that a callback signals (or leaves).
        var waitsForCallback: Bool
        /// That callback runs on a queue the waiting caller may be holding: Core Data's context queue (`perform`,
        /// `performAndWait`, a store's `loadPersistentStores`).
        var callbackNeedsAQueue: Bool
        /// That callback is a `Task`'s, which may need the main actor.
        var callbackIsATask: Bool
        /// In a computed property's getter: a property read that blocks.
        var inGetter: Bool
        /// In an `@objc` method: a selector that a timer, a notification or a control calls, on the main thread in an
        /// app.
        var inObjCMethod: Bool
        /// The file is test code.
        var inTestCode: Bool
    }

    private var waitables: Set<String> = []
    /// The semaphores and groups the file signals (or leaves) inside a closure: a callback ends the wait.
    private var signalledInCallbacks: Set<String> = []
    /// Of those, the ones signalled in a callback that needs a queue the caller may hold or in a `Task`, with the
    /// function, initializer or accessor the signal is in.
    private var signalledInBoundCallbacks: [(name: String, task: Bool, scope: SyntaxIdentifier?)] = []

    override package class var visitedKinds: Set<SyntaxKind> { [.functionCallExpr, .sourceFile] }

    /// The message for a wait; nil when this rule does not report it.
    func message(for wait: Wait) -> String? { nil }

    override package func visit(_ node: SourceFileSyntax) -> SyntaxVisitorContinueKind {
        waitables = context.declarations.names { binding in
            binding.value.hasPrefix("DispatchSemaphore(") || binding.value.hasPrefix("DispatchGroup(")
                || binding.type.hasPrefix("DispatchSemaphore") || binding.type.hasPrefix("DispatchGroup")
        }
        return .visitChildren
    }

    private static let queueBoundCallbacks: Set<String> = ["perform", "performAndWait", "loadPersistentStores"]

    override package func visit(_ node: FunctionCallExprSyntax) -> SyntaxVisitorContinueKind {
        guard let name = node.calledName, let receiver = node.receiverText else { return .visitChildren }
        let waitable = lastComponent(receiver)
        if (name == "signal" || name == "leave"), waitables.contains(waitable), !node.enclosingClosures.isEmpty {
            signalledInCallbacks.insert(waitable)
            for closure in node.enclosingClosures {
                guard let call = closure.enclosingCall, let callName = call.calledName else { continue }
                let callee = call.receiverText ?? ""
                let task = callName == "Task" || (callName == "detached" && callee == "Task")
                let queue = Self.queueBoundCallbacks.contains(callName)
                if task || queue {
                    signalledInBoundCallbacks.append((waitable, task, node.functionScope?.id))
                    break
                }
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

    override package func visitPost(_ node: SourceFileSyntax) {
        // Signals may come after the wait in the file: decided once the walk has seen them all.
        let inTestCode = pending.isEmpty ? false : context.isTestCode
        for (call, mainBound, waitable) in pending {
            let outsideClosures = call.enclosingClosures.isEmpty
            let inGetter = call.ancestors.contains { ancestor in
                if let accessor = ancestor.as(AccessorDeclSyntax.self) {
                    return accessor.accessorSpecifier.tokenKind == .keyword(.get)
                }
                // A computed property without `get`: `var x: T { ... }`.
                return ancestor.is(AccessorBlockSyntax.self) && ancestor.parent?.is(PatternBindingSyntax.self) == true
                    && ancestor.as(AccessorBlockSyntax.self)?.accessors.is(CodeBlockItemListSyntax.self) == true
            }
            let wait = Wait(
                mainBound: mainBound,
                waitsForCallback: signalledInCallbacks.contains(waitable) && outsideClosures,
                callbackNeedsAQueue: outsideClosures && signalledInBoundCallback(waitable, task: false, waitedAt: call),
                callbackIsATask: outsideClosures && signalledInBoundCallback(waitable, task: true, waitedAt: call),
                inGetter: inGetter,
                inObjCMethod: call.enclosingFunction?.attributes.contains {
                    $0.as(AttributeSyntax.self)?.attributeName.trimmedDescription == "objc"
                } ?? false,
                inTestCode: inTestCode)
            if let message = message(for: wait) { reportCall(call, message: message) }
        }
    }
}

extension BlockingWaitVisitor {
    /// Whether a `Task` (or else a callback on a queue the caller may hold) signals the semaphore or group `name`
    /// waited on at `call`: a local one (declared in the waiting function) only by a signal in that function, a
    /// property by any signal of the file.
    private func signalledInBoundCallback(_ name: String, task: Bool, waitedAt call: FunctionCallExprSyntax) -> Bool {
        let scope = call.functionScope
        let local =
            scope?.tokens(viewMode: .sourceAccurate).contains {
                $0.text == name && $0.parent?.is(IdentifierPatternSyntax.self) == true
            } ?? false
        return signalledInBoundCallbacks.contains {
            $0.name == name && $0.task == task && (!local || $0.scope == scope?.id)
        }
    }
}

extension SyntaxProtocol {
    /// The function, initializer or accessor this code is in.
    fileprivate var functionScope: Syntax? {
        ancestors.first {
            $0.is(FunctionDeclSyntax.self) || $0.is(InitializerDeclSyntax.self) || $0.is(AccessorDeclSyntax.self)
                || ($0.is(AccessorBlockSyntax.self) && $0.parent?.is(PatternBindingSyntax.self) == true)
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

    override func message(for wait: Wait) -> String? {
        wait.mainBound ? rule.message : nil
    }
}

/// `let semaphore = DispatchSemaphore(value: 0); api.load { ...; semaphore.signal() }; semaphore.wait()` outside a
/// main-bound type: an asynchronous API made synchronous. Whatever thread calls it blocks until the callback runs: the
/// main thread freezes if it is the caller, and if the callback is delivered on the caller's own queue (the main queue,
/// a Core Data context's queue) it never runs: a deadlock. Reported where that is likely, in code that is not a test
/// (tests make callbacks synchronous on purpose, on threads they own): when the callback needs a queue the caller may
/// be holding (a Core Data context's `perform` or a store's `loadPersistentStores`); when an `@objc` method (a timer's, a notification's or a control's selector, run on the main
/// thread in an app) waits for a `Task`, which may need the main actor; or when the wait is in a computed property's
/// getter, which its readers call from any thread, the main one included, not expecting it to block. Other bridges (a
/// network call or a `Task` a background operation or a command-line tool waits for, main-queue work an activity item
/// provider waits for off the main thread) are left alone: the thread is usually the caller's own.
package final class BlockingWaitForCallback: BlockingWaitVisitor {
    package static let description = RuleDescription(
        id: "blocking-wait-for-callback", severity: .warning,
        message:
            "waits on a semaphore/group that a callback signals: the calling thread blocks until the callback runs "
            + "(the UI freezes when that is the main thread, and it deadlocks when the callback needs the caller's "
            + "queue); pass a completion handler or use `await` instead",
        visitor: BlockingWaitForCallback.self)

    override func message(for wait: Wait) -> String? {
        guard !wait.mainBound, wait.waitsForCallback, !wait.inTestCode else { return nil }
        return wait.inGetter || wait.callbackNeedsAQueue || (wait.callbackIsATask && wait.inObjCMethod)
            ? rule.message : nil
    }
}
