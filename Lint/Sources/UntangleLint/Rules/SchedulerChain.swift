// receive-on-concurrent-queue, subscribe-on-twice, rx-subscribe-on-main: scheduler operators used the wrong way.

import SwiftSyntax

/// `receive(on:)` with a concurrent queue: Combine requires a serial scheduler for downstream delivery; a concurrent
/// queue delivers values out of order and concurrently (sink and operators race). Syntax sees `DispatchQueue.global`
/// and queues created with `attributes: .concurrent` in the same file.
package final class ReceiveOnConcurrentQueue: LintVisitor {
    package static let description = RuleDescription(
        id: "receive-on-concurrent-queue", severity: .error,
        message:
            "receive(on:) with a concurrent queue delivers values concurrently and out of order (Combine requires a "
            + "serial scheduler); use a serial DispatchQueue",
        visitor: ReceiveOnConcurrentQueue.self)

    private var concurrentQueues: Set<String> = []

    override package class var visitedKinds: Set<SyntaxKind> { [.functionCallExpr, .sourceFile] }

    override package func visit(_ node: SourceFileSyntax) -> SyntaxVisitorContinueKind {
        concurrentQueues = context.declarations.names { binding in
            binding.value.hasPrefix("DispatchQueue(") && binding.value.contains(".concurrent")
                || binding.value.hasPrefix("DispatchQueue.global(")
        }
        return .visitChildren
    }

    override package func visit(_ node: FunctionCallExprSyntax) -> SyntaxVisitorContinueKind {
        guard node.calledName == "receive", let scheduler = node.argument("on")?.trimmedDescription,
            node.receiver != nil
        else { return .visitChildren }
        if scheduler.hasPrefix("DispatchQueue.global(") || scheduler.hasPrefix(".global(")
            || concurrentQueues.contains(lastComponent(scheduler))
        {
            reportCall(node)
        }
        return .visitChildren
    }
}

/// `subscribe(on:)` twice in one chain: only the one nearest the source takes effect (subscription happens upstream
/// first), so the other is dead code that suggests a threading the chain does not have.
package final class SubscribeOnTwice: LintVisitor {
    package static let description = RuleDescription(
        id: "subscribe-on-twice", severity: .warning,
        message:
            "subscribe(on:) twice in one chain: only the one nearest the source decides where subscription happens; "
            + "remove the other (use receive(on:) to move deliveries)",
        visitor: SubscribeOnTwice.self)

    override package class var visitedKinds: Set<SyntaxKind> { [.functionCallExpr] }

    override package func visit(_ node: FunctionCallExprSyntax) -> SyntaxVisitorContinueKind {
        guard isSubscribeOn(node) else { return .visitChildren }
        // Report once per chain: at the outermost subscribe(on:) that has another below it, only if no subscribe(on:)
        // above it already reported.
        if node.chainBelow.contains(where: isSubscribeOn), !hasSubscribeOnAbove(node) { reportCall(node) }
        return .visitChildren
    }

    private func isSubscribeOn(_ call: FunctionCallExprSyntax) -> Bool {
        (call.calledName == "subscribe" && call.argumentLabels.first == "on") || call.calledName == "subscribeOn"
    }

    private func hasSubscribeOnAbove(_ call: FunctionCallExprSyntax) -> Bool {
        var node = Syntax(call)
        while let member = node.parent?.as(MemberAccessExprSyntax.self),
            let outer = member.parent?.as(FunctionCallExprSyntax.self)
        {
            if isSubscribeOn(outer) { return true }
            node = Syntax(outer)
        }
        return false
    }
}

/// RxSwift: `subscribeOn(MainScheduler.instance)` (or `subscribe(on: MainScheduler.instance)`) written to get
/// callbacks on the main thread: it only moves the subscription; events still arrive on the producer's thread.
package final class RxSubscribeOnMain: LintVisitor {
    package static let description = RuleDescription(
        id: "rx-subscribe-on-main", severity: .warning,
        message:
            "subscribeOn(MainScheduler.instance) only moves the subscription, not the events; use "
            + "observe(on: MainScheduler.instance) to deliver on the main thread",
        visitor: RxSubscribeOnMain.self)

    override package class var visitedKinds: Set<SyntaxKind> { [.functionCallExpr] }

    override package func visit(_ node: FunctionCallExprSyntax) -> SyntaxVisitorContinueKind {
        let isSubscribeOn =
            node.calledName == "subscribeOn" || (node.calledName == "subscribe" && node.argumentLabels == ["on"])
        guard isSubscribeOn, let scheduler = node.arguments.first?.expression.trimmedDescription else {
            return .visitChildren
        }
        if scheduler.hasPrefix("MainScheduler.") || scheduler == "MainScheduler()" { reportCall(node) }
        return .visitChildren
    }
}
