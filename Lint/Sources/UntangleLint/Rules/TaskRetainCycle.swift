// task-retain-cycle: a `Task` stored on `self` whose closure keeps `self`, where the task does not end on its own
// or the code around it shows the author meant to hold `self` weakly.

import Foundation
import SwiftSyntax

/// `self.observer = Task { for await x in stream { self.apply(x) } }`: the object keeps the task, the task's closure
/// keeps the object. A task that runs until it is cancelled (a `for await` loop over a stream, `while true`) never
/// lets go, and the object is never freed; cancelling the task in `deinit` does not help, since `deinit` never runs.
/// The same cycle, for as long as the task runs, when the task is made inside a closure that captured `self` weakly
/// and rebound it (`guard let self`): the nested task captures the strong `self` again (`Task`'s closure captures
/// `self` even without writing `self.`).
///
/// Reported: a `Task { }` or `Task.detached { }` assigned to a property of `self` (or to an element of one), in a
/// class, actor or extension, whose closure does not weaken `self` and uses it (`self`, or a member of the file's
/// types named without `self.`), and that either loops without an end of its own or sits in a closure that weakens
/// `self`. Syntax cannot tell a stream that finishes soon from one that never does: a task whose loop ends with its
/// stream is reported too (disable with a reason where the stream is known to finish).
package final class TaskRetainCycle: LintVisitor {
    package static let description = RuleDescription(
        id: "task-retain-cycle", severity: .warning,
        message:
            "Task stored on self captures self strongly (its closure keeps self, self keeps the task: a retain cycle "
            + "that lasts as long as the task runs, for ever for a loop over a stream); capture [weak self] in the "
            + "Task's closure and unwrap it where it is used",
        visitor: TaskRetainCycle.self)

    override package class var visitedKinds: Set<SyntaxKind> { [.functionCallExpr] }

    override package func visit(_ node: FunctionCallExprSyntax) -> SyntaxVisitorContinueKind {
        guard isTaskCreation(node), node.closures.count == 1, let closure = node.closures.first,
            node.inReferenceTypeOrExtension, !closure.weakensSelf, let property = storedProperty(node),
            usesSelf(closure, around: node), !isSingleton(around: node)
        else { return .visitChildren }
        let nestedInWeakClosure = node.enclosingClosures.contains { $0.weakensSelf }
        if nestedInWeakClosure || (loopsUntilCancelled(closure) && !isCancelledOutsideDeinit(property)) {
            reportCall(node)
        }
        return .visitChildren
    }

    /// Whether the enclosing type keeps an instance of itself in a static property (`static let shared =
    /// Downloader()`): that instance lives as long as the program, so a cycle through it frees nothing less.
    private func isSingleton(around node: some SyntaxProtocol) -> Bool {
        guard let name = enclosingTypeName(of: node) else { return false }
        let escaped = NSRegularExpression.escapedPattern(for: name)
        let pattern = "static (let|var) [A-Za-z_][A-Za-z0-9_]*( *: *\(escaped))? *= *\(escaped)( *\\(|\\.init)"
        return context.source.range(of: pattern, options: .regularExpression) != nil
    }

    private func enclosingTypeName(of node: some SyntaxProtocol) -> String? {
        for ancestor in node.ancestors {
            if let type = ancestor.as(ClassDeclSyntax.self) { return type.name.text }
            if let type = ancestor.as(ActorDeclSyntax.self) { return type.name.text }
            if let type = ancestor.as(ExtensionDeclSyntax.self) { return type.extendedType.trimmedDescription }
        }
        return nil
    }

    // A task cancelled by a method other than `deinit` (`stop()`, `viewDidDisappear`, `tearDown`) ends when that
    // method runs, and the cycle with it: the owner's life cycle breaks it, which syntax cannot follow further.
    // A cancel in `deinit` alone does not: `deinit` waits for the cycle to end.
    private func isCancelledOutsideDeinit(_ property: String) -> Bool {
        let finder = CancelFinder(property: property)
        finder.walk(context.tree)
        return finder.found
    }

    /// `Task { }`, `Task(priority: .high) { }`, `Task<Void, Never> { }`, `Task.detached { }`.
    private func isTaskCreation(_ call: FunctionCallExprSyntax) -> Bool {
        switch call.calledName {
        case "Task": return call.receiverText == nil
        case "detached": return call.receiverText == "Task"
        default: return false
        }
    }

    /// The property of `self` the task is assigned to (`self.task = Task { }`, `task = Task { }` with `task` a member
    /// the file declares, `tasks[id] = Task { }`), or nil when the task is not stored on `self`.
    private func storedProperty(_ call: FunctionCallExprSyntax) -> String? {
        guard let sequence = call.parent?.as(ExprListSyntax.self) else { return nil }
        let elements = Array(sequence)
        guard elements.count == 3, elements[2].id == call.id, elements[1].is(AssignmentExprSyntax.self) else {
            return nil
        }
        var target = elements[0]
        if let subscriptCall = target.as(SubscriptCallExprSyntax.self) { target = subscriptCall.calledExpression }
        if let member = target.as(MemberAccessExprSyntax.self) {
            return member.base?.trimmedDescription == "self" ? member.declName.baseName.text : nil
        }
        if let reference = target.as(DeclReferenceExprSyntax.self) {
            let name = reference.baseName.text
            let isMember =
                context.declarations.declaredMembers.contains(name) && !namesDeclared(around: call).contains(name)
            return isMember ? name : nil
        }
        return nil
    }

    /// Whether the closure uses `self`: written out, or implicitly through a member of the file's types (a `Task`'s
    /// closure captures `self` implicitly) that no local declaration or parameter, of the closure or of the function
    /// around the task, shadows.
    private func usesSelf(_ closure: ClosureExprSyntax, around call: FunctionCallExprSyntax) -> Bool {
        if closure.usesSelfStrongly { return true }
        let members = context.declarations.declaredMembers
        guard !members.isEmpty else { return false }
        let shadowed = namesDeclared(in: closure).union(namesDeclared(around: call))
        let finder = ImplicitMemberUseFinder(members: members, shadowed: shadowed)
        finder.walk(closure.statements)
        return finder.found
    }

    /// The parameters and local names of the function, initializer or accessor the task is made in (and of the
    /// closures between).
    private func namesDeclared(around call: FunctionCallExprSyntax) -> Set<String> {
        var names: Set<String> = []
        for ancestor in call.ancestors {
            if let closure = ancestor.as(ClosureExprSyntax.self) { names.formUnion(namesDeclared(in: closure)) }
            let body: CodeBlockSyntax?
            if let function = ancestor.as(FunctionDeclSyntax.self) {
                names.formUnion(
                    function.signature.parameterClause.parameters.map { ($0.secondName ?? $0.firstName).text })
                body = function.body
            } else if let initializer = ancestor.as(InitializerDeclSyntax.self) {
                names.formUnion(
                    initializer.signature.parameterClause.parameters.map { ($0.secondName ?? $0.firstName).text })
                body = initializer.body
            } else if ancestor.is(AccessorDeclSyntax.self) {
                body = ancestor.as(AccessorDeclSyntax.self)?.body
            } else {
                continue
            }
            for token in body?.tokens(viewMode: .sourceAccurate) ?? Syntax(call).tokens(viewMode: .sourceAccurate)
            where token.parent?.is(IdentifierPatternSyntax.self) == true {
                names.insert(token.text)
            }
            break
        }
        return names
    }

    /// A loop with no end of its own: `for await ... in`, `while true`, `while !Task.isCancelled`, `repeat { } while
    /// true`.
    private func loopsUntilCancelled(_ closure: ClosureExprSyntax) -> Bool {
        let finder = EndlessLoopFinder(viewMode: .sourceAccurate)
        finder.walk(closure.statements)
        return finder.found
    }

    /// The parameters and local names a closure declares (they shadow members of the same name).
    private func namesDeclared(in closure: ClosureExprSyntax) -> Set<String> {
        var names: Set<String> = []
        if let parameters = closure.signature?.parameterClause {
            switch parameters {
            case .simpleInput(let list): names.formUnion(list.map(\.name.text))
            case .parameterClause(let clause): names.formUnion(clause.parameters.map { $0.firstName.text })
            }
        }
        for token in closure.statements.tokens(viewMode: .sourceAccurate) {
            guard case .identifier(let name) = token.tokenKind, token.parent?.is(IdentifierPatternSyntax.self) == true
            else { continue }
            names.insert(name)
        }
        return names
    }
}

/// Finds a member of the file's types used without `self.` (a bare name that is neither a member's name after a
/// dot, a label, nor shadowed), outside nested closures that weaken `self`.
private final class ImplicitMemberUseFinder: SyntaxVisitor {
    let members: Set<String>
    let shadowed: Set<String>
    var found = false

    init(members: Set<String>, shadowed: Set<String>) {
        self.members = members
        self.shadowed = shadowed
        super.init(viewMode: .sourceAccurate)
    }

    override func visit(_ node: ClosureExprSyntax) -> SyntaxVisitorContinueKind {
        node.weakensSelf ? .skipChildren : .visitChildren
    }

    override func visit(_ node: DeclReferenceExprSyntax) -> SyntaxVisitorContinueKind {
        let name = node.baseName.text
        let isMemberName = node.parent?.as(MemberAccessExprSyntax.self)?.declName.id == node.id
        if !isMemberName, members.contains(name), !shadowed.contains(name) { found = true }
        return .skipChildren
    }
}

/// Finds `property.cancel()`, `property?.cancel()`, `self.property[key]?.cancel()` outside `deinit`.
private final class CancelFinder: SyntaxVisitor {
    let property: String
    var found = false

    init(property: String) {
        self.property = property
        super.init(viewMode: .sourceAccurate)
    }

    override func visit(_ node: DeinitializerDeclSyntax) -> SyntaxVisitorContinueKind {
        .skipChildren
    }

    override func visit(_ node: FunctionCallExprSyntax) -> SyntaxVisitorContinueKind {
        guard node.calledName == "cancel", var receiver = node.receiver?.trimmedDescription else {
            return .visitChildren
        }
        receiver = receiver.filter { $0 != "?" && $0 != "!" }
        if receiver.hasPrefix("self.") { receiver.removeFirst(5) }
        if let bracket = receiver.firstIndex(of: "[") { receiver = String(receiver[..<bracket]) }
        if receiver == property { found = true }
        return .visitChildren
    }
}

/// Finds a loop that does not end on its own: `for await`, `while true`, `while !Task.isCancelled`.
private final class EndlessLoopFinder: SyntaxVisitor {
    var found = false

    override func visit(_ node: ClosureExprSyntax) -> SyntaxVisitorContinueKind {
        .skipChildren
    }

    override func visit(_ node: ForStmtSyntax) -> SyntaxVisitorContinueKind {
        if node.awaitKeyword != nil { found = true }
        return .visitChildren
    }

    override func visit(_ node: WhileStmtSyntax) -> SyntaxVisitorContinueKind {
        if Self.isEndless(node.conditions.trimmedDescription) { found = true }
        return .visitChildren
    }

    override func visit(_ node: RepeatStmtSyntax) -> SyntaxVisitorContinueKind {
        if Self.isEndless(node.condition.trimmedDescription) { found = true }
        return .visitChildren
    }

    static func isEndless(_ condition: String) -> Bool {
        let text = condition.filter { !$0.isWhitespace }
        return text == "true" || text == "!Task.isCancelled"
    }
}
