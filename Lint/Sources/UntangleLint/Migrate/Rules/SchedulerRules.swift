// Schedulers, keeping RxSwift's timing: `MainScheduler.instance` runs an action at once when already on the main
// queue with nothing queued ahead, so it becomes UntangleExtras' `MainThreadScheduler.shared`, which does the same
// (`DispatchQueue.main` would defer every delivery to a later turn). `MainScheduler.asyncInstance` always defers: it is
// `DispatchQueue.main`. Dispatch-queue schedulers become the queues they wrap (a new serial queue for
// `SerialDispatchQueueScheduler(qos:)`, as RxSwift makes one); `CurrentThreadScheduler` becomes
// `ImmediateScheduler.shared`; `observe(on:)`/`observeOn` becomes `receive(on:)`, `subscribeOn` `subscribe(on:)`.

import SwiftSyntax

final class SchedulerRules: MigrationRule {
    override class var id: String { "schedulers" }

    override func rewrite(_ node: MemberAccessExprSyntax, original: MemberAccessExprSyntax) -> ExprSyntax? {
        guard let base = node.base?.as(DeclReferenceExprSyntax.self)?.baseName.text else { return nil }
        let text: String
        switch (base, node.declName.baseName.text) {
        case ("MainScheduler", "instance"), ("ConcurrentMainScheduler", "instance"): text = "MainThreadScheduler.shared"
        case ("MainScheduler", "asyncInstance"):
            text = "DispatchQueue.main"
            context.usesDispatch = true
        case ("CurrentThreadScheduler", "instance"): text = "ImmediateScheduler.shared"
        case ("RxTimeInterval", let member):
            text = "DispatchQueue.SchedulerTimeType.Stride.\(member)"
            context.usesDispatch = true
        default: return nil
        }
        return replace(node, of: original, with: text)
    }

    override func rewrite(_ node: FunctionCallExprSyntax, original: FunctionCallExprSyntax) -> ExprSyntax? {
        if let name = node.methodName, original.receiver != nil {
            switch name {
            case "observeOn" where node.arguments.count == 1,
                "observe" where node.argumentLabels == ["on"]:
                let replacement = node.renamingMethod("receive").replacingArguments([
                    ("on", node.arguments.first!.expression)
                ])
                record(original, replacement)
                return ExprSyntax(replacement)
            case "subscribeOn" where node.arguments.count == 1:
                let replacement = node.renamingMethod("subscribe").replacingArguments([
                    ("on", node.arguments.first!.expression)
                ])
                record(original, replacement)
                return ExprSyntax(replacement)
            default: return nil
            }
        }
        guard let type = node.calledExpression.as(DeclReferenceExprSyntax.self)?.baseName.text else { return nil }
        func argument(_ label: String) -> String? { node.argument(label)?.trimmedDescription }
        let labels = node.argumentLabels
        var text: String?
        switch type {
        case "MainScheduler" where labels.isEmpty: text = "MainThreadScheduler.shared"
        case "ConcurrentDispatchQueueScheduler":
            if labels == ["queue"] {
                text = argument("queue")
            } else if labels == ["qos"] || labels.isEmpty {
                text = "DispatchQueue.global(qos: \(argument("qos") ?? ".default"))"
            }
        case "SerialDispatchQueueScheduler":
            let name = argument("internalSerialQueueName") ?? "\"untangle.serial\""
            switch Set(labels) {
            case ["serialQueue"]: text = argument("serialQueue")
            case ["qos"], ["qos", "internalSerialQueueName"]:
                text = "DispatchQueue(label: \(name), qos: \(argument("qos")!))"
            case ["internalSerialQueueName"]: text = "DispatchQueue(label: \(name))"
            case ["queue", "internalSerialQueueName"]:
                text = "DispatchQueue(label: \(name), target: \(argument("queue")!))"
            default: break
            }
        case "OperationQueueScheduler" where labels.first == "operationQueue":
            text = argument("operationQueue")
        default: break
        }
        guard let text else {
            if ["ConcurrentDispatchQueueScheduler", "SerialDispatchQueueScheduler", "OperationQueueScheduler"]
                .contains(type)
            {
                spot(original, "\(type) with these arguments: use the DispatchQueue or OperationQueue it wraps")
            }
            return nil
        }
        if text.hasPrefix("DispatchQueue") { context.usesDispatch = true }
        return replace(node, of: original, with: text)
    }
}
