// Subjects, relays and observers: constructing them (`PublishSubject<Int>()`, `BehaviorSubject(value: 0)`,
// `ReplaySubject<Int>.create(bufferSize: 1)`, `PublishRelay<Int>()`, `BehaviorRelay(value: 0)`), reading a behavior
// subject (`try s.value()` → `s.value`), and the observer calls (`onNext(x)` → `send(x)`, `onError(e)` →
// `send(completion: .failure(e))`, `onCompleted()` → `send(completion: .finished)`, and `on(.next(x))`...) made on
// subjects and on `Observable.create`'s observer alike. `accept` and a relay's `value` are the same in UntangleExtras.

import SwiftSyntax

final class SubjectRules: MigrationRule {
    override class var id: String { "subjects" }

    override func rewrite(_ node: FunctionCallExprSyntax, original: FunctionCallExprSyntax) -> ExprSyntax? {
        if let constructed = construct(node, original) { return constructed }
        guard let name = node.methodName, original.receiver != nil else { return nil }
        let arguments = node.arguments.map(\.expression)
        let replacement: FunctionCallExprSyntax
        switch (name, arguments.count) {
        case ("onNext", 1) where node.arguments.first?.label == nil:
            replacement = node.renamingMethod("send")
        case ("onError", 1) where node.arguments.first?.label == nil:
            replacement = node.renamingMethod("send").replacingArguments([
                ("completion", parseExpression(".failure(\(arguments[0].trimmedDescription))"))
            ])
        case ("onCompleted", 0):
            replacement = node.renamingMethod("send").replacingArguments([
                ("completion", parseExpression(".finished"))
            ])
        case ("on", 1) where node.arguments.first?.label == nil:
            guard let event = Self.event(arguments[0]) else {
                let kind = original.receiver.flatMap { facts.kind(of: $0) }
                if kind == .observer || kind?.isSubject == true {
                    spot(original, "on(_:) with an Event value: send(_:) a value or send(completion:)")
                }
                return nil
            }
            replacement = node.renamingMethod("send").replacingArguments([event])
        default:
            return nil
        }
        record(original, replacement)
        return ExprSyntax(replacement)
    }

    /// `.next(x)` → (nil, x); `.error(e)` → ("completion", .failure(e)); `.completed` → ("completion", .finished).
    static func event(_ expression: ExprSyntax) -> (label: String?, expression: ExprSyntax)? {
        if let call = expression.as(FunctionCallExprSyntax.self),
            let member = call.calledExpression.as(MemberAccessExprSyntax.self), member.base == nil,
            call.arguments.count == 1, let argument = call.arguments.first?.expression
        {
            switch member.declName.baseName.text {
            case "next": return (nil, argument)
            case "error": return ("completion", parseExpression(".failure(\(argument.trimmedDescription))"))
            default: return nil
            }
        }
        if let member = expression.as(MemberAccessExprSyntax.self), member.base == nil,
            member.declName.baseName.text == "completed"
        {
            return ("completion", parseExpression(".finished"))
        }
        return nil
    }

    /// Subject and relay constructors.
    private func construct(_ node: FunctionCallExprSyntax, _ original: FunctionCallExprSyntax) -> ExprSyntax? {
        var callee = ExprSyntax(original.calledExpression)
        var factory: String?
        if let member = callee.as(MemberAccessExprSyntax.self), let base = member.base {
            factory = member.declName.baseName.text
            callee = base
        }
        var typeArgument: String?
        if let generic = callee.as(GenericSpecializationExprSyntax.self) {
            // From the rewritten node: a type argument may itself name RxSwift types.
            typeArgument = node.rewrittenStaticElement ?? generic.genericArgumentClause.arguments.trimmedDescription
            callee = generic.expression
        }
        guard let typeName = callee.as(DeclReferenceExprSyntax.self)?.baseName.text else { return nil }
        let element = typeArgument ?? "_"
        let arguments = node.arguments
        let text: String
        switch (typeName, factory) {
        case ("PublishSubject", nil) where arguments.isEmpty:
            text = typeArgument.map { "PassthroughSubject<\($0), Error>()" } ?? "PassthroughSubject()"
        case ("BehaviorSubject", nil) where arguments.first?.label?.text == "value" && arguments.count == 1:
            text =
                "CurrentValueSubject<\(element), Error>(\(arguments[arguments.startIndex].expression.trimmedDescription))"
        case ("ReplaySubject", "create") where arguments.first?.label?.text == "bufferSize":
            text =
                "ReplaySubject<\(element), Error>(bufferSize: \(arguments[arguments.startIndex].expression.trimmedDescription))"
        case ("ReplaySubject", "createUnbounded") where arguments.isEmpty:
            text = "ReplaySubject<\(element), Error>.unbounded()"
        case ("PublishRelay", nil) where arguments.isEmpty:
            text = typeArgument.map { "PassthroughRelay<\($0)>()" } ?? "PassthroughRelay()"
        case ("BehaviorRelay", nil) where arguments.first?.label?.text == "value" && arguments.count == 1:
            let generic = typeArgument.map { "<\($0)>" } ?? ""
            text = "CurrentValueRelay\(generic)(\(arguments[arguments.startIndex].expression.trimmedDescription))"
        case ("AsyncSubject", _), ("ReplayRelay", _):
            spot(original, TypeRules.unmatched[typeName] ?? typeName)
            return nil
        default:
            return nil
        }
        return replace(node, of: original, with: text)
    }

    /// `try subject.value()` → `subject.value` (UntangleExtras' and Combine's `value` does not throw); `try?` keeps
    /// the optional type: `Optional(subject.value)`.
    override func rewrite(_ node: TryExprSyntax, original: TryExprSyntax) -> ExprSyntax? {
        guard let call = node.expression.as(FunctionCallExprSyntax.self), call.methodName == "value",
            call.arguments.isEmpty, call.trailingClosure == nil,
            let member = call.calledExpression.as(MemberAccessExprSyntax.self), let base = member.base
        else { return nil }
        let kind = original.expression.as(FunctionCallExprSyntax.self)?.receiver.flatMap { facts.kind(of: $0) }
        guard kind == nil || kind == .behaviorSubject else { return nil }
        let read = "\(base.trimmedDescription).value"
        let text = node.questionOrExclamationMark?.tokenKind == .postfixQuestionMark ? "Optional(\(read))" : read
        return replace(node, of: original, with: text)
    }
}
