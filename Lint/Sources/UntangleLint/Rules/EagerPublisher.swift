// eager-publisher: a function that builds a subject, starts the work that sends to it, and returns it: the work runs
// when the publisher is built, not when it is subscribed.

import SwiftSyntax

/// `func load() -> AnyPublisher<Data, Error> { let subject = PassthroughSubject<...>(); Task { subject.send(...) };
/// return subject.eraseToAnyPublisher() }`: any publisher whose builder starts the work, not only `Future`. The work
/// runs whether or not anyone subscribes, once however many subscribe, and before `subscribe(on:)` can move it; and a
/// `PassthroughSubject` drops every value sent before the subscriber arrives (a cached or synchronous answer is lost,
/// and the subscriber waits forever). The fix wraps the body in `Deferred { }`, which runs it per subscription.
/// Reported at the subject's declaration when the function returns a `PassthroughSubject` (erased or through operators)
/// after starting, in the statements between, work that sends to it: a closure (a callback, `Task`, dispatch, `sink`)
/// that calls `send` on it, or a `send` made right there.
package final class EagerPublisher: LintVisitor {
    package static let description = RuleDescription(
        id: "eager-publisher", severity: .warning,
        message:
            "this function starts the work that sends to the PassthroughSubject it returns: the work runs when the "
            + "publisher is built, not when it is subscribed, and what is sent before the subscriber arrives is lost; "
            + "wrap the body in Deferred { } so each subscription starts it",
        visitor: EagerPublisher.self)

    /// Subjects that drop what is sent before a subscriber arrives. (A `CurrentValueSubject` returned after starting
    /// its work is a state the caller reads, usually an operation's progress started on purpose: not reported.)
    private static let subjectTypes: Set<String> = ["PassthroughSubject", "PassthroughRelay"]

    override package class var visitedKinds: Set<SyntaxKind> { [.functionCallExpr] }

    /// Starts from the subject's construction (`let subject = PassthroughSubject<...>()`), a statement of a function's
    /// or accessor's body, and reads on to the body's `return`.
    override package func visit(_ node: FunctionCallExprSyntax) -> SyntaxVisitorContinueKind {
        guard let type = node.calledName, Self.subjectTypes.contains(type), node.receiver == nil,
            let binding = node.parent?.as(InitializerClauseSyntax.self)?.parent?.as(PatternBindingSyntax.self),
            let name = binding.pattern.as(IdentifierPatternSyntax.self)?.identifier,
            let item = binding.parent?.parent?.as(VariableDeclSyntax.self)?.parent?.as(CodeBlockItemSyntax.self),
            let list = item.parent?.as(CodeBlockItemListSyntax.self), Self.isBodyOfFunctionOrAccessor(list)
        else { return .visitChildren }
        var startsWork = false
        var after = false
        for statement in list {
            if statement.id == item.id {
                after = true
                continue
            }
            guard after else { continue }
            if let returned = statement.item.as(ReturnStmtSyntax.self) {
                if startsWork, let expression = returned.expression, Self.rootName(expression) == name.text {
                    report(name)
                }
                break
            }
            // A later declaration of the name shadows the subject.
            if let variable = statement.item.as(VariableDeclSyntax.self),
                variable.bindings.contains(where: {
                    $0.pattern.as(IdentifierPatternSyntax.self)?.identifier.text == name.text
                })
            {
                break
            }
            if !startsWork {
                let finder = SendFinder(name: name.text)
                finder.walk(statement)
                startsWork = finder.startsWork
            }
        }
        return .visitChildren
    }

    /// The local name a returned expression is built on: `subject` in `subject`, `subject.eraseToAnyPublisher()`,
    /// `subject.handleEvents(...).eraseToAnyPublisher()`.
    private static func rootName(_ expression: ExprSyntax) -> String? {
        var root = expression
        while true {
            if let call = root.as(FunctionCallExprSyntax.self), let receiver = call.receiver {
                root = receiver
            } else if let member = root.as(MemberAccessExprSyntax.self), let base = member.base {
                root = base
            } else {
                break
            }
        }
        return root.as(DeclReferenceExprSyntax.self)?.baseName.text
    }

    /// The statements of a function's, initializer-less accessor's or computed property's body (not a closure's or a
    /// nested block's).
    private static func isBodyOfFunctionOrAccessor(_ list: CodeBlockItemListSyntax) -> Bool {
        if list.parent?.is(AccessorBlockSyntax.self) == true { return true }
        guard let block = list.parent?.as(CodeBlockSyntax.self) else { return false }
        return block.parent?.is(FunctionDeclSyntax.self) == true || block.parent?.is(AccessorDeclSyntax.self) == true
    }
}

/// Finds `name.send(...)` in a statement: inside a closure (work that runs later, started now), or made directly (lost:
/// nobody has subscribed yet). Closures that run per subscription (`Deferred`, `handleEvents`' `receiveSubscription`/
/// `receiveRequest`) do not count.
private final class SendFinder: SyntaxVisitor {
    let name: String
    var startsWork = false

    init(name: String) {
        self.name = name
        super.init(viewMode: .sourceAccurate)
    }

    override func visit(_ node: ClosureExprSyntax) -> SyntaxVisitorContinueKind {
        if let call = node.enclosingCall {
            if call.calledName == "Deferred" { return .skipChildren }
            let label = node.parent?.as(LabeledExprSyntax.self)?.label?.text
            if call.calledName == "handleEvents", label == "receiveSubscription" || label == "receiveRequest" {
                return .skipChildren
            }
        }
        return .visitChildren
    }

    override func visit(_ node: FunctionCallExprSyntax) -> SyntaxVisitorContinueKind {
        if node.calledName == "send", node.receiverText == name { startsWork = true }
        return .visitChildren
    }
}
