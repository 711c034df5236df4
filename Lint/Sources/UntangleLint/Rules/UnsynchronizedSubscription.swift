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

/// Shared by subscription-state-outside-lock and buffer-state-outside-lock: a type that owns a lock and touches some
/// of its state outside it. Each rule checks its kind of type (``checksSubscriptions``, ``checksPlumbing``).
package class LockedStateVisitor: LintVisitor {
    /// Custom `Subscription`s: `request`, `cancel` and `receive` reading or writing lock-guarded state without it.
    var checksSubscriptions: Bool { false }
    /// Demand buffers and cancellables: a method mutating, outside the lock, state another method locks for.
    var checksPlumbing: Bool { false }

    override package class var visitedKinds: Set<SyntaxKind> { [.classDecl] }

    override package func visit(_ node: ClassDeclSyntax) -> SyntaxVisitorContinueKind {
        let inherited = node.inheritanceClause?.inheritedTypes.map { $0.type.trimmedDescription } ?? []
        if inherited.contains(where: { $0 == "Subscription" || $0 == "Combine.Subscription" }) {
            if checksSubscriptions { reportStateOutsideItsLock(node) }
        } else if node.name.text.hasSuffix("Buffer") || node.name.text.contains("Cancellable")
            || inherited.contains(where: { $0.contains("Cancellable") })
        {
            if checksPlumbing { reportMutationsOutsideTheLock(node) }
        }
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
            guarded.insert(Self.propertyName(target.trimmedDescription))
        }
        guard !guarded.isEmpty else { return }
        for member in node.memberBlock.members {
            guard let function = member.decl.as(FunctionDeclSyntax.self), let body = function.body,
                ["request", "cancel", "receive"].contains(function.name.text)
            else { continue }
            if Self.documentsItsLocking(body) { continue }
            let locals = Self.localNames(function)
            let unguarded = body.tokens(viewMode: .sourceAccurate).first { token in
                guard case .identifier(let name) = token.tokenKind, guarded.contains(name),
                    Self.isOwnProperty(token, locals: locals), !Self.isLockedBox(token)
                else { return false }
                return !token.isUnderLock
            }
            if let unguarded {
                report(
                    unguarded,
                    message: "custom Subscription's \(function.name.text) uses `\(unguarded.text)` outside the lock "
                        + "that guards it elsewhere in the type (a data race with the locked accesses); take the lock "
                        + "for every access, then call out after unlocking")
            }
        }
    }

    /// A demand buffer's or cancellable's methods that mutate, outside the lock, a property another access touches
    /// under it.
    private func reportMutationsOutsideTheLock(_ node: ClassDeclSyntax) {
        var stored: Set<String> = []
        var ownsLock = false
        for member in node.memberBlock.members {
            guard let variable = member.decl.as(VariableDeclSyntax.self) else { continue }
            for binding in variable.bindings {
                guard let name = binding.pattern.as(IdentifierPatternSyntax.self)?.identifier.text else { continue }
                if namesLock(name) { ownsLock = true } else { stored.insert(name) }
            }
        }
        guard ownsLock, !stored.isEmpty else { return }
        let functions = node.memberBlock.members.compactMap { $0.decl.as(FunctionDeclSyntax.self) }.filter {
            !$0.modifiers.contains { $0.name.tokenKind == .keyword(.static) || $0.name.tokenKind == .keyword(.class) }
        }
        var touchedUnderLock: Set<String> = []
        for function in functions {
            guard let body = function.body else { continue }
            let locals = Self.localNames(function)
            for token in body.tokens(viewMode: .sourceAccurate)
            where stored.contains(token.text) && Self.isOwnProperty(token, locals: locals) && token.isUnderLock {
                touchedUnderLock.insert(token.text)
            }
        }
        guard !touchedUnderLock.isEmpty else { return }
        // A method that runs with the caller's lock held says so: by its name (`terminateAndConsumeLock`,
        // `flushLocked`) or by asserting it owns the lock.
        for function in functions where !namesLock(function.name.text) {
            if function.body?.description.contains("assertOwner") == true { continue }
            if let body = function.body, Self.documentsItsLocking(body) { continue }
            let locals = Self.localNames(function)
            let unguarded = function.body?.tokens(viewMode: .sourceAccurate).first { token in
                touchedUnderLock.contains(token.text) && Self.isOwnProperty(token, locals: locals)
                    && Self.isMutation(token) && !token.isUnderLock
            }
            if let unguarded {
                report(
                    unguarded,
                    message: "\(node.name.text).\(function.name.text) mutates `\(unguarded.text)` outside the lock "
                        + "the type takes for it elsewhere (a data race with the locked accesses on another thread); "
                        + "take the lock for every access")
            }
        }
    }

    /// Whether a comment in the body speaks of locking (`// downstreamLock is already acquired here`, `// Combine
    /// doesn't use locking in this method!`): the author has decided which lock covers the access, or that none does,
    /// on purpose.
    private static func documentsItsLocking(_ body: CodeBlockSyntax) -> Bool {
        body.tokens(viewMode: .sourceAccurate).contains { token in
            (token.leadingTrivia.pieces + token.trailingTrivia.pieces).contains { piece in
                switch piece {
                case .lineComment(let text), .blockComment(let text): text.lowercased().contains("lock")
                default: false
                }
            }
        }
    }

    /// The property an assignment's target names: `demand` in `self.demand`, `demandState` in
    /// `demandState.requested`.
    private static func propertyName(_ target: String) -> String {
        let text = target.hasPrefix("self.") ? String(target.dropFirst(5)) : target
        return String(text.prefix { $0 != "." && $0 != "[" && $0 != "?" && $0 != "!" })
    }

    /// The function's parameters and local bindings, which shadow properties of the same name.
    private static func localNames(_ function: FunctionDeclSyntax) -> Set<String> {
        var names = Set(function.signature.parameterClause.parameters.map { ($0.secondName ?? $0.firstName).text })
        guard let body = function.body else { return names }
        for token in body.tokens(viewMode: .sourceAccurate) where token.parent?.is(IdentifierPatternSyntax.self) == true
        {
            names.insert(token.text)
        }
        return names
    }

    /// Whether the token names this object's property: `self.name`, or a bare `name` that no local shadows (not
    /// `other.name`).
    private static func isOwnProperty(_ token: TokenSyntax, locals: Set<String>) -> Bool {
        guard case .identifier = token.tokenKind, let reference = token.parent?.as(DeclReferenceExprSyntax.self)
        else { return false }
        if let member = reference.parent?.as(MemberAccessExprSyntax.self), member.declName.id == reference.id {
            return member.base?.trimmedDescription == "self"
        }
        return !locals.contains(token.text)
    }

    /// Whether the token names a box that locks itself, used through its locking verb: `state` in
    /// `state.withCriticalSection { state in ... }` or `state.withLock { }` (the access is the locked one).
    private static func isLockedBox(_ token: TokenSyntax) -> Bool {
        guard let reference = token.parent?.as(DeclReferenceExprSyntax.self) else { return false }
        var expression = Syntax(reference)
        if let member = expression.parent?.as(MemberAccessExprSyntax.self), member.declName.id == reference.id,
            member.base?.trimmedDescription == "self"
        {
            expression = Syntax(member)
        }
        guard let member = expression.parent?.as(MemberAccessExprSyntax.self), member.base?.id == expression.id
        else { return false }
        return ["withCriticalSection", "withLock", "withLockedValue", "withUnlockedValue", "sync", "locked"]
            .contains(member.declName.baseName.text)
    }

    private static let mutatingMethods: Set<String> = [
        "append", "insert", "remove", "removeAll", "removeFirst", "removeLast", "removeValue", "popLast", "popFirst",
        "formUnion", "subtract", "merge", "update", "updateValue", "reserveCapacity",
    ]

    /// Whether the property the token names is mutated there: assigned (`x = `, `x += `, `x[k] = `) or sent a
    /// mutating method (`x.append(...)`).
    private static func isMutation(_ token: TokenSyntax) -> Bool {
        guard var expression = token.parent.map(Syntax.init) else { return false }
        if let member = expression.parent?.as(MemberAccessExprSyntax.self), member.base?.trimmedDescription == "self" {
            expression = Syntax(member)
        }
        if let member = expression.parent?.as(MemberAccessExprSyntax.self), member.base?.id == expression.id,
            mutatingMethods.contains(member.declName.baseName.text),
            member.parent?.as(FunctionCallExprSyntax.self)?.calledExpression.id == member.id
        {
            return true
        }
        if let subscriptCall = expression.parent?.as(SubscriptCallExprSyntax.self),
            subscriptCall.calledExpression.id == expression.id
        {
            expression = Syntax(subscriptCall)
        }
        guard let sequence = expression.parent?.as(ExprListSyntax.self), sequence.first?.id == expression.id,
            sequence.count > 1
        else { return false }
        let next = sequence[sequence.index(after: sequence.startIndex)]
        if next.is(AssignmentExprSyntax.self) { return true }
        if let op = next.as(BinaryOperatorExprSyntax.self)?.operator.text {
            return ["+=", "-=", "*=", "/=", "|=", "&="].contains(op)
        }
        return false
    }
}

/// A subscription that does lock: the properties it assigns under its lock somewhere (`self.demand -= 1` in
/// `lock.sync { }`), read or written by `request`, `cancel` or `receive` outside any lock. The lock guards nothing for
/// that access, which races with the locked ones on another thread. Reported at the access. A method whose comments
/// speak of locking is skipped: its author decided on purpose which lock covers an access, or that none does (a path
/// documented as already holding another lock, `// Combine doesn't use locking in this method!`); so is a box that
/// locks itself, used through its locking verb (`state.withCriticalSection { }`).
package final class SubscriptionStateOutsideLock: LockedStateVisitor {
    package static let description = RuleDescription(
        id: "subscription-state-outside-lock", severity: .warning,
        message:
            "custom Subscription uses state outside the lock that guards it elsewhere in the type (a data race with "
            + "the locked accesses); take the lock for every access, then call out after unlocking",
        visitor: SubscriptionStateOutsideLock.self)

    override var checksSubscriptions: Bool { true }
}

/// The plumbing around subscriptions: a type named like a demand buffer or a cancellable (`DemandBuffer`,
/// `…Cancellable`) that owns a lock, and a property one method touches under the lock, mutated by another method
/// outside it (`buffer.append(value)`, `actions.append(...)`): the append races with the locked drain on another
/// thread (lost or duplicated values, a crash in the array). Only mutations are reported, not reads, and not in a
/// method that says it runs under its caller's lock (by its name, or by asserting it owns the lock).
package final class BufferStateOutsideLock: LockedStateVisitor {
    package static let description = RuleDescription(
        id: "buffer-state-outside-lock", severity: .warning,
        message:
            "a demand buffer or cancellable mutates state outside the lock it takes for that state elsewhere (a data "
            + "race with the locked accesses on another thread); take the lock for every access",
        visitor: BufferStateOutsideLock.self)

    override var checksPlumbing: Bool { true }
}
