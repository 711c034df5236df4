// eager-future: a `Future` returned from a function or property, whose work starts before anyone subscribes.

import SwiftSyntax

/// `func load() -> AnyPublisher<...> { Future { promise in ... } }`: `Future` runs its closure when created, not
/// when subscribed, so the side effect happens even if nobody subscribes, once however many subscribe, and before
/// `subscribe(on:)` can move it. Wrap it in `Deferred { Future { ... } }`. Syntax cannot know whether eager start
/// is intended (sometimes it is: a request that must start now): disable the finding with a reason then.
package final class EagerFuture: LintVisitor {
    package static let description = RuleDescription(
        id: "eager-future", severity: .warning,
        message:
            "Future runs its closure at creation, not at subscription (the side effect happens even with no "
            + "subscriber, and only once); wrap it in Deferred { Future { ... } } unless eager start is intended",
        visitor: EagerFuture.self)

    override package class var visitedKinds: Set<SyntaxKind> { [.functionCallExpr] }

    override package func visit(_ node: FunctionCallExprSyntax) -> SyntaxVisitorContinueKind {
        guard node.calledName == "Future", node.receiver == nil, node.closures.count == 1 else {
            return .visitChildren
        }
        if node.enclosingClosures.contains(where: { $0.enclosingCall?.calledName == "Deferred" }) {
            return .visitChildren
        }
        guard isReturned(node) else { return .visitChildren }
        reportCall(node)
        return .visitChildren
    }

    /// Whether the Future (possibly wrapped in `.eraseToAnyPublisher()` and the like) is what a function or computed
    /// property returns.
    private func isReturned(_ call: FunctionCallExprSyntax) -> Bool {
        var node = Syntax(call)
        while let member = node.parent?.as(MemberAccessExprSyntax.self),
            let outer = member.parent?.as(FunctionCallExprSyntax.self)
        {
            node = Syntax(outer)
        }
        if node.parent?.is(ReturnStmtSyntax.self) == true { return isInFunctionOrAccessor(node) }
        // Implicit return: the single statement of a function or accessor body.
        if let item = node.parent?.as(CodeBlockItemSyntax.self),
            let list = item.parent?.as(CodeBlockItemListSyntax.self),
            list.count == 1
        {
            let owner = list.parent
            return owner?.is(CodeBlockSyntax.self) == true
                && (owner?.parent?.is(FunctionDeclSyntax.self) == true
                    || owner?.parent?.is(AccessorDeclSyntax.self) == true)
                || owner?.is(AccessorBlockSyntax.self) == true
        }
        return false
    }

    private func isInFunctionOrAccessor(_ node: Syntax) -> Bool {
        for ancestor in node.ancestors {
            if ancestor.is(ClosureExprSyntax.self) { return false }
            if ancestor.is(FunctionDeclSyntax.self) || ancestor.is(AccessorDeclSyntax.self)
                || ancestor.is(AccessorBlockSyntax.self)
            {
                return true
            }
        }
        return false
    }
}
