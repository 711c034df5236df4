// unsynchronized-subscription: a hand-written `Subscription` whose `request`/`cancel` mutate state without a lock.

import SwiftSyntax

/// A class conforming to `Subscription` whose `request(_:)` or `cancel()` assigns to state (a demand counter, the
/// subscriber) with no lock in sight: Combine calls `request` and `cancel` from any thread, concurrently with
/// `receive`. Syntax recognises a lock by name (`lock`, `withLock`, `withCriticalSection`, `sync`, `Mutex`, atomics).
package final class UnsynchronizedSubscription: LintVisitor {
    package static let description = RuleDescription(
        id: "unsynchronized-subscription", severity: .warning,
        message:
            "custom Subscription mutates its state in request/cancel without a lock, but these are called from any "
            + "thread concurrently (demand and the subscriber race); guard the state with a lock, or build the "
            + "publisher from a Subject or Untangle's Publishers.Create",
        visitor: UnsynchronizedSubscription.self)

    private static let lockWords = [
        "lock", "Lock", "withCriticalSection", "sync", "Mutex", "mutex", "atomic", "Atomic", "os_unfair",
        "Serialized", "serial",
    ]

    override package class var visitedKinds: Set<SyntaxKind> { [.classDecl] }

    override package func visit(_ node: ClassDeclSyntax) -> SyntaxVisitorContinueKind {
        let conforms =
            node.inheritanceClause?.inheritedTypes.contains {
                let name = $0.type.trimmedDescription
                return name == "Subscription" || name == "Combine.Subscription"
            } ?? false
        guard conforms else { return .visitChildren }
        for member in node.memberBlock.members {
            guard let function = member.decl.as(FunctionDeclSyntax.self), let body = function.body else { continue }
            let name = function.name.text
            let params = function.signature.parameterClause.parameters
            let isRequest = name == "request" && params.count == 1
            let isCancel = name == "cancel" && params.isEmpty
            guard isRequest || isCancel else { continue }
            let text = body.description
            if Self.lockWords.contains(where: { text.contains($0) }) { continue }
            if mutatesState(body) { report(function.name) }
        }
        return .visitChildren
    }

    private func mutatesState(_ body: CodeBlockSyntax) -> Bool {
        body.tokens(viewMode: .sourceAccurate).contains { token in
            switch token.tokenKind {
            case .binaryOperator(let op): return ["+=", "-=", "="].contains(op)
            case .equal: return token.parent?.is(AssignmentExprSyntax.self) == true
            default: return false
            }
        }
    }
}

/// A subscription that does lock: the properties it assigns under its lock somewhere (`self.demand -= 1` in
/// `lock.sync { }`), read or written by `request`, `cancel` or `receive` outside any lock. The lock guards nothing for
/// that access, which races with the locked ones on another thread. Off by default: libraries read some state outside
/// the lock on purpose (a flag only one thread writes, a path documented as already holding another lock).
package final class SubscriptionStateOutsideLock: LintVisitor {
    package static let description = RuleDescription(
        id: "subscription-state-outside-lock", severity: .warning,
        message:
            "custom Subscription uses state outside the lock that guards it elsewhere in the type (a data race with "
            + "the locked accesses); take the lock for every access, then call out after unlocking",
        enabledByDefault: false,
        // Off by default: measured on the precision trees, see the UntangleLint article.
        visitor: SubscriptionStateOutsideLock.self)

    override package class var visitedKinds: Set<SyntaxKind> { [.classDecl] }

    override package func visit(_ node: ClassDeclSyntax) -> SyntaxVisitorContinueKind {
        let conforms =
            node.inheritanceClause?.inheritedTypes.contains {
                let name = $0.type.trimmedDescription
                return name == "Subscription" || name == "Combine.Subscription"
            } ?? false
        if conforms { reportStateOutsideItsLock(node) }
        return .visitChildren
    }

    /// Reports each of `request`, `cancel` and `receive` that uses a lock-guarded property outside every lock.
    private func reportStateOutsideItsLock(_ node: ClassDeclSyntax) {
        var guarded: Set<String> = []
        for token in node.memberBlock.tokens(viewMode: .sourceAccurate) {
            guard
                token.tokenKind == .equal || token.tokenKind == .binaryOperator("+=")
                    || token.tokenKind == .binaryOperator("-="),
                let sequence = token.parent?.parent?.as(ExprListSyntax.self) ?? token.parent?.as(ExprListSyntax.self),
                let target = sequence.first, sequence.isUnderLock
            else { continue }
            guarded.insert(lastComponent(target.trimmedDescription))
        }
        guard !guarded.isEmpty else { return }
        for member in node.memberBlock.members {
            guard let function = member.decl.as(FunctionDeclSyntax.self), let body = function.body,
                ["request", "cancel", "receive"].contains(function.name.text)
            else { continue }
            // Parameters and local bindings shadow the properties of the same name.
            var parameters = Set(
                function.signature.parameterClause.parameters.map { ($0.secondName ?? $0.firstName).text })
            for token in body.tokens(viewMode: .sourceAccurate)
            where token.parent?.is(IdentifierPatternSyntax.self) == true {
                parameters.insert(token.text)
            }
            let unguarded = body.tokens(viewMode: .sourceAccurate).first { token in
                guard case .identifier(let name) = token.tokenKind, guarded.contains(name),
                    token.parent?.is(DeclReferenceExprSyntax.self) == true
                else { return false }
                // `self.name` or a bare `name` (not `other.name`), outside every lock.
                let member = token.parent?.parent?.as(MemberAccessExprSyntax.self)
                if let member, member.base?.trimmedDescription != "self" { return false }
                if member == nil && parameters.contains(name) { return false }
                return !token.isUnderLock
            }
            if let unguarded {
                report(
                    function.name,
                    message: "custom Subscription's \(function.name.text) uses `\(unguarded.text)` outside the lock "
                        + "that guards it elsewhere in the type (a data race with the locked accesses); take the lock "
                        + "for every access, then call out after unlocking")
            }
        }
    }

}
