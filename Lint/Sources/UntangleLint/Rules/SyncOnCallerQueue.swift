// sync-on-caller-queue: `.sync` onto a queue the caller hands in, with nothing that checks where the caller runs.

import SwiftSyntax

/// `queue.sync { }` where `queue` is a `DispatchQueue` parameter of the enclosing function or initializer, which does
/// not check where it runs (`Thread.isMainThread`, `dispatchPrecondition`, `DispatchQueue.getSpecific`): a helper that
/// deadlocks whenever its caller already runs on the queue it passes, the main queue from the main thread (a trap) or
/// a serial queue from its own work (a hang). JARMourato's `Dispatch.sync(_:closure:)` shipped it and later checked
/// `queue == .main && Thread.isMainThread` first (the corpus of real fixes, C075). Test code is not checked: a test's
/// helper that drains a queue with `sync` is called from the test's thread.
package final class SyncOnCallerQueue: LintVisitor {
    package static let description = RuleDescription(
        id: "sync-on-caller-queue", severity: .warning,
        message:
            "`.sync` on a queue the caller passes in deadlocks when the caller already runs on it (the main queue "
            + "from the main thread, a serial queue from its own work); use .async with a completion, or check "
            + "first (Thread.isMainThread for .main, DispatchQueue.getSpecific for your own queues)",
        visitor: SyncOnCallerQueue.self)

    override package class var visitedKinds: Set<SyntaxKind> { [.functionCallExpr] }

    override package func visit(_ node: FunctionCallExprSyntax) -> SyntaxVisitorContinueKind {
        guard node.calledName == "sync", let receiver = node.receiver?.as(DeclReferenceExprSyntax.self),
            !context.isTestCode, let scope = Self.enclosingDeclaration(of: node),
            Self.parameterTypes(of: scope)[receiver.baseName.text].map(Self.isDispatchQueue) == true,
            !Self.checksWhereItRuns(scope)
        else {
            return .visitChildren
        }
        reportCall(node)
        return .visitChildren
    }

    /// The function or initializer whose parameters the call can name (closures in between are its own code: a
    /// wrapper closure it builds still syncs on the caller's queue); nil at a type's or the file's level.
    private static func enclosingDeclaration(of node: FunctionCallExprSyntax) -> Syntax? {
        for ancestor in node.ancestors {
            if ancestor.is(FunctionDeclSyntax.self) || ancestor.is(InitializerDeclSyntax.self) { return ancestor }
            if ancestor.is(AccessorDeclSyntax.self) || ancestor.is(DeinitializerDeclSyntax.self)
                || ancestor.is(ClassDeclSyntax.self) || ancestor.is(StructDeclSyntax.self)
                || ancestor.is(EnumDeclSyntax.self) || ancestor.is(ExtensionDeclSyntax.self)
                || ancestor.is(ActorDeclSyntax.self) || ancestor.is(ProtocolDeclSyntax.self)
            {
                return nil
            }
        }
        return nil
    }

    /// The declaration's parameters by the name its body uses (the second name when there is one), with their types'
    /// text.
    private static func parameterTypes(of declaration: Syntax) -> [String: String] {
        let parameters: FunctionParameterListSyntax
        if let function = declaration.as(FunctionDeclSyntax.self) {
            parameters = function.signature.parameterClause.parameters
        } else if let initializer = declaration.as(InitializerDeclSyntax.self) {
            parameters = initializer.signature.parameterClause.parameters
        } else {
            return [:]
        }
        var types: [String: String] = [:]
        for parameter in parameters {
            types[(parameter.secondName ?? parameter.firstName).text] = parameter.type.trimmedDescription
        }
        return types
    }

    private static func isDispatchQueue(_ type: String) -> Bool {
        ["DispatchQueue", "DispatchQueue?", "DispatchQueue!", "Dispatch.DispatchQueue"].contains(type)
    }

    /// Whether the declaration asks where it runs before it waits: the checks the real fixes add.
    private static func checksWhereItRuns(_ declaration: Syntax) -> Bool {
        let text = declaration.description
        return text.contains("isMainThread") || text.contains("dispatchPrecondition") || text.contains("getSpecific")
    }
}
