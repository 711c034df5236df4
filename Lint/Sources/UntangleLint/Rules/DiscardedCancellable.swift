// discarded-cancellable and rx-undisposed-subscription: a subscription whose handle is thrown away.

import SwiftSyntax

/// Whether `call` is the whole of a statement (`x.sink { }` alone) or the right side of `_ = ...`.
func isDiscarded(_ call: FunctionCallExprSyntax) -> Bool {
    var node = Syntax(call)
    if let tryExpr = node.parent?.as(TryExprSyntax.self) { node = Syntax(tryExpr) }
    if node.parent?.is(CodeBlockItemSyntax.self) == true {
        // A single expression is the return value of a closure, a getter, or a function that returns something.
        guard let list = node.parent?.parent?.as(CodeBlockItemListSyntax.self), list.count == 1 else { return true }
        let owner = list.parent
        if owner?.is(ClosureExprSyntax.self) == true || owner?.is(AccessorBlockSyntax.self) == true { return false }
        if let function = owner?.parent?.as(FunctionDeclSyntax.self) { return function.signature.returnClause == nil }
        if owner?.parent?.is(AccessorDeclSyntax.self) == true { return false }
        return true
    }
    if let list = node.parent?.as(ExprListSyntax.self), list.count == 3,
        list.first?.is(DiscardAssignmentExprSyntax.self) == true, list.last.map({ Syntax($0) }) == node
    {
        return true
    }
    return false
}

/// `_ = x.subscribe(...)`: RxSwift's `subscribe` is not `@discardableResult`, so `_ =` is the author's decision to let
/// the subscription run until the sequence ends (RxSwift's own examples and tests do it for finite sequences).
func isExplicitlyDiscarded(_ call: FunctionCallExprSyntax) -> Bool {
    var node = Syntax(call)
    if let tryExpr = node.parent?.as(TryExprSyntax.self) { node = Syntax(tryExpr) }
    guard let list = node.parent?.as(ExprListSyntax.self) else { return false }
    return list.count == 3 && list.first?.is(DiscardAssignmentExprSyntax.self) == true
}

/// `_ = publisher.sink { }` or a bare `publisher.sink { }` statement: the `AnyCancellable` is released at once, which
/// cancels the subscription, so only what arrives synchronously during `sink` is seen. Not reported in test code (which
/// discards the cancellables of synchronous publishers on purpose: OpenCombine's tests, 7 of 7 such findings harmless)
/// nor for a source that delivers everything during `sink` (`Just`, `Empty`, `Fail`, `Record`, a collection's
/// `publisher`).
package final class DiscardedCancellable: LintVisitor {
    package static let description = RuleDescription(
        id: "discarded-cancellable", severity: .warning,
        message:
            "the AnyCancellable of this sink/assign is discarded, which cancels the subscription at once (values "
            + "arriving later are lost); store it (store(in:)) for as long as the values matter",
        visitor: DiscardedCancellable.self)

    override package class var visitedKinds: Set<SyntaxKind> { [.functionCallExpr] }

    override package func visit(_ node: FunctionCallExprSyntax) -> SyntaxVisitorContinueKind {
        guard let name = node.calledName, name == "sink" || name == "assign", node.receiver != nil, isDiscarded(node),
            !context.isTestCode, !Self.deliversDuringSubscribe(node.chainRoot)
        else { return .visitChildren }
        let labels = node.argumentLabels
        let isSink = name == "sink" && (node.trailingClosure != nil || labels.contains("receiveValue"))
        let isAssign = name == "assign" && labels == ["to", "on"]
        if isSink || isAssign { reportCall(node) }
        return .visitChildren
    }

    /// Sources that deliver every value and their completion while `sink` subscribes.
    private static func deliversDuringSubscribe(_ root: ExprSyntax?) -> Bool {
        guard let text = root?.trimmedDescription else { return false }
        return ["Just(", "Empty(", "Fail(", "Record(", "Result.Publisher(", "Publishers.Sequence("].contains {
            text.hasPrefix($0)
        } || (text.hasPrefix("[") && text.hasSuffix("].publisher"))
            || (text.hasPrefix("(") && text.hasSuffix(").publisher"))
    }
}

/// RxSwift: `subscribe(onNext:)` (or `bind`/`drive` with a closure) whose `Disposable` is neither `disposed(by:)`
/// nor kept: the subscription lives until the sequence ends, possibly forever (a leak).
package final class RxUndisposedSubscription: LintVisitor {
    package static let description = RuleDescription(
        id: "rx-undisposed-subscription", severity: .warning,
        message:
            "RxSwift subscription whose Disposable is discarded: it lives until the sequence ends (a leak if it "
            + "never does); add .disposed(by: disposeBag)",
        visitor: RxUndisposedSubscription.self)

    override package class var visitedKinds: Set<SyntaxKind> { [.functionCallExpr] }

    override package func visit(_ node: FunctionCallExprSyntax) -> SyntaxVisitorContinueKind {
        guard node.calledName == "subscribe", node.receiver != nil, isDiscarded(node), !isExplicitlyDiscarded(node)
        else { return .visitChildren }
        let rxLabels = ["onNext", "onError", "onCompleted", "onSuccess", "onFailure", "onDisposed"]
        if node.argumentLabels.contains(where: { rxLabels.contains($0) }) { reportCall(node) }
        return .visitChildren
    }
}
