// callout-under-lock: a hand-written subscription or subscriber calls its downstream or upstream while holding its
// own lock.

import SwiftSyntax

/// Whether a receiver's text names a lock: `lock`, `self.stateLock`, `mutex`. A lock named for the downstream
/// (`downstreamLock`) serializes the calls out themselves, recursively: holding it while calling out is its purpose.
func namesLock(_ text: String) -> Bool {
    let lowered = lastComponent(text).lowercased()
    return (lowered.contains("lock") || lowered.contains("mutex")) && !lowered.contains("downstream")
        && !lowered.contains("upstream")
}

/// The last `lock()` (true) or `unlock()` (false) a statement performs on a lock, its trailing closures included
/// (`withExtendedLifetime(x) { ...; lock.unlock() }`), with the lock's name; nil for none. A `guard` does not count
/// (its `else` exits); an `if` or a `switch` that unlocks anywhere counts as unlocking (each branch usually does).
private func lastLockAction(_ statement: CodeBlockItemSyntax) -> (locks: Bool, lock: String)? {
    let item = Syntax(statement.item)
    if item.is(GuardStmtSyntax.self) { return nil }
    // A helper that releases the lock: `terminateAndConsumeLock()`, `unlockAndNotify()`.
    if let helper = item.as(FunctionCallExprSyntax.self)?.calledName?.lowercased(),
        helper != "unlock",
        helper.contains("unlock") || helper.contains("consumelock") || helper.contains("releaselock")
    {
        return (false, "")
    }
    let compound =
        item.as(ExpressionStmtSyntax.self).map {
            $0.expression.is(IfExprSyntax.self) || $0.expression.is(SwitchExprSyntax.self)
        }
        ?? false
    guard compound || item.is(FunctionCallExprSyntax.self) else { return nil }
    var action: (locks: Bool, lock: String)?
    for token in item.tokens(viewMode: .sourceAccurate) {
        guard let lock = lockCall(token) else { continue }
        let name = token.text
        // In an `if` or a `switch`, an unlock in a branch that then exits (`return`, `throw`) ends that branch only,
        // and so does one that the branch takes again later (`lock.unlock(); call(); lock.lock()` in a loop).
        if compound && name == "unlock" && (branchExits(around: token) || branchRelocks(after: token)) { continue }
        action = (name == "lock", lock)
        if compound && name == "unlock" { return (false, lock) }
    }
    return compound ? nil : action
}

/// The lock's name when `token` is the method name of `lock.lock()` or `lock.unlock()` on something named like a lock.
private func lockCall(_ token: TokenSyntax) -> String? {
    guard case .identifier(let name) = token.tokenKind, name == "lock" || name == "unlock",
        token.nextToken(viewMode: .sourceAccurate)?.tokenKind == .leftParen,
        let member = token.parent?.parent?.as(MemberAccessExprSyntax.self),
        let base = member.base, namesLock(base.trimmedDescription)
    else { return nil }
    return lastComponent(base.trimmedDescription)
}

/// Whether the innermost block around `token` ends its branch with `return`, `throw`, `break` or `continue`.
private func branchExits(around token: TokenSyntax) -> Bool {
    for ancestor in token.ancestors {
        if let list = ancestor.as(CodeBlockItemListSyntax.self) {
            return list.contains {
                $0.item.is(ReturnStmtSyntax.self) || $0.item.is(ThrowStmtSyntax.self)
                    || $0.item.is(BreakStmtSyntax.self) || $0.item.is(ContinueStmtSyntax.self)
            }
        }
    }
    return false
}

/// Whether the innermost block around the `unlock` at `token` locks again after it.
private func branchRelocks(after token: TokenSyntax) -> Bool {
    guard let list = token.ancestors.lazy.compactMap({ $0.as(CodeBlockItemListSyntax.self) }).first else {
        return false
    }
    return list.tokens(viewMode: .sourceAccurate).contains {
        $0.position > token.position && $0.text == "lock" && lockCall($0) != nil
    }
}

extension SyntaxProtocol {
    /// Whether this code runs while a lock is held, within its function: inside the closure of `lock.sync { }`,
    /// `lock.withLock { }`, `withCriticalSection { }`, or after a `lock.lock()` statement of an enclosing block that no
    /// `unlock()` statement has closed yet (a `defer { lock.unlock() }` keeps it held to the end of the scope).
    package var isUnderLock: Bool { heldLock != nil }

    /// The name of the lock held here (see ``isUnderLock``): `lock` for `self.lock.lock()`, `withCriticalSection`
    /// for its closure; nil when none is.
    package var heldLock: String? {
        var node = Syntax(self)
        while let parent = node.parent {
            if parent.is(FunctionDeclSyntax.self) || parent.is(InitializerDeclSyntax.self)
                || parent.is(AccessorDeclSyntax.self) || parent.is(DeinitializerDeclSyntax.self)
            {
                return nil
            }
            if let closure = parent.as(ClosureExprSyntax.self) {
                guard let call = closure.enclosingCall, let name = call.calledName else { return nil }
                if ["sync", "withLock", "withCriticalSection", "withLockedValue", "locked", "synchronized"].contains(
                    name)
                {
                    if name == "withCriticalSection" { return name }
                    if let receiver = call.receiverText, namesLock(receiver) { return lastComponent(receiver) }
                }
                // A closure runs under the caller's lock only when it runs at once: iteration and the like. Others
                // (a side effect run after unlocking, a scheduled block) run whenever they are called.
                guard
                    ["forEach", "map", "compactMap", "filter", "reduce", "withExtendedLifetime", "first"].contains(name)
                else { return nil }
            }
            if let item = node.as(CodeBlockItemSyntax.self), let list = parent.as(CodeBlockItemListSyntax.self) {
                // The nearest block that locks or unlocks before this statement decides.
                var held: (locks: Bool, lock: String)?
                for sibling in list {
                    if sibling.id == item.id { break }
                    if let action = lastLockAction(sibling) { held = action }
                }
                if let held { return held.locks ? held.lock : nil }
            }
            node = parent
        }
        return nil
    }
}

/// `lock.lock(); defer { lock.unlock() }; return subscriber.receive(value)`: a subscription (or subscriber) calls its
/// downstream (`receive`), its upstream (`request`, `cancel`) or an RxSwift observer (`on`, `onNext`) while holding its
/// lock. The callee may call back at once (a sink that requests more, cancels, or sends on a subject feeding this
/// chain): with a plain lock that deadlocks. Decide under the lock, call after unlocking. Not reported: a lock the file
/// declares recursive (`NSRecursiveLock`, `UnfairRecursiveLock`, RxSwift's `RecursiveLock`), which libraries hold while
/// calling out on purpose, designed for the re-entrant call (GRDB's observations, OpenCombine's `Zip` and its
/// `outerLock`); and test code, whose helper subscriptions serialize their events that way.
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

    /// The locks the file declares recursive; nil in test code, where the rule reports nothing.
    private var recursiveLocks: Set<String>?

    override package class var visitedKinds: Set<SyntaxKind> { [.functionCallExpr, .sourceFile] }

    override package func visit(_ node: SourceFileSyntax) -> SyntaxVisitorContinueKind {
        recursiveLocks =
            context.isTestCode
            ? nil
            : context.declarations.names { $0.value.contains("Recursive") || $0.type.contains("Recursive") }
        return .visitChildren
    }

    override package func visit(_ node: FunctionCallExprSyntax) -> SyntaxVisitorContinueKind {
        guard let recursiveLocks, let name = node.calledName, Self.calloutNames.contains(name),
            let receiver = node.receiverText
        else {
            return .visitChildren
        }
        let peer = lastComponent(receiver.filter { $0 != "?" && $0 != "!" }).lowercased()
        guard Self.peerWords.contains(where: { peer.contains($0) }), let lock = node.heldLock,
            !recursiveLocks.contains(lock)
        else { return .visitChildren }
        reportCall(node)
        return .visitChildren
    }
}
