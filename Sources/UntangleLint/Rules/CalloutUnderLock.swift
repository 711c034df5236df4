// callout-under-lock: a hand-written subscription or subscriber calls its downstream or upstream while holding its
// own lock.

import SwiftSyntax

/// Whether a receiver's text names a lock: `lock`, `self.stateLock`, `mutex`.
func namesLock(_ text: String) -> Bool {
    let lowered = lastComponent(text).lowercased()
    return lowered.contains("lock") || lowered.contains("mutex")
}

extension SyntaxProtocol {
    /// Whether this code runs while a lock is held, within its function: inside the closure of `lock.sync { }`,
    /// `lock.withLock { }`, `withCriticalSection { }`, or after a `lock.lock()` statement of an enclosing block that no
    /// `unlock()` statement has closed yet (a `defer { lock.unlock() }` keeps it held to the end of the scope).
    package var isUnderLock: Bool {
        var node = Syntax(self)
        while let parent = node.parent {
            if parent.is(FunctionDeclSyntax.self) || parent.is(InitializerDeclSyntax.self)
                || parent.is(AccessorDeclSyntax.self) || parent.is(DeinitializerDeclSyntax.self)
            {
                return false
            }
            if let closure = parent.as(ClosureExprSyntax.self), let call = closure.enclosingCall,
                let name = call.calledName,
                ["sync", "withLock", "withCriticalSection", "withLockedValue", "locked", "synchronized"].contains(name)
            {
                if name == "withCriticalSection" || call.receiverText.map(namesLock) == true { return true }
            }
            if let item = node.as(CodeBlockItemSyntax.self), let list = parent.as(CodeBlockItemListSyntax.self) {
                // The nearest block that locks or unlocks before this statement decides.
                var held: Bool?
                for sibling in list {
                    if sibling.id == item.id { break }
                    guard let call = sibling.item.as(FunctionCallExprSyntax.self), let receiver = call.receiverText,
                        namesLock(receiver)
                    else { continue }
                    if call.calledName == "lock" { held = true }
                    if call.calledName == "unlock" { held = false }
                }
                if let held { return held }
            }
            node = parent
        }
        return false
    }
}

/// `lock.lock(); defer { lock.unlock() }; return subscriber.receive(value)`: a subscription (or subscriber) calls its
/// downstream (`receive`), its upstream (`request`, `cancel`) or an RxSwift observer (`on`, `onNext`) while holding its
/// lock. The callee may call back at once (a sink that requests more, cancels, or sends on a subject feeding this
/// chain): with a plain lock that deadlocks; with a recursive lock the re-entrant call sees state mid-update. Decide
/// under the lock, call after unlocking.
package final class CalloutUnderLock: LintVisitor {
    package static let description = RuleDescription(
        id: "callout-under-lock", severity: .warning,
        message:
            "calls its subscriber or upstream while holding its lock: a callee that calls back (request, cancel, send) "
            + "deadlocks or sees state mid-update; decide under the lock, call after unlocking",
        visitor: CalloutUnderLock.self)

    private static let calloutNames: Set<String> = [
        "receive", "request", "cancel", "on", "onNext", "onError", "onCompleted",
    ]
    private static let peerWords = ["subscriber", "downstream", "observer", "upstream", "subscription"]

    override package class var visitedKinds: Set<SyntaxKind> { [.functionCallExpr] }

    override package func visit(_ node: FunctionCallExprSyntax) -> SyntaxVisitorContinueKind {
        guard let name = node.calledName, Self.calloutNames.contains(name), let receiver = node.receiverText else {
            return .visitChildren
        }
        let peer = lastComponent(receiver.filter { $0 != "?" && $0 != "!" }).lowercased()
        guard Self.peerWords.contains(where: { peer.contains($0) }), node.isUnderLock else { return .visitChildren }
        reportCall(node)
        return .visitChildren
    }
}
