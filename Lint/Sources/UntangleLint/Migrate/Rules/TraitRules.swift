// Traits: `Single`, `Maybe`, `Completable` onto UntangleExtras' traits (their `Failure` is `Error`). `Single.just(x)`
// → `Single<T, Error>(x)`, `error(e)` → `(error: e)`, `Maybe.empty()` and `Completable.empty()` → `.empty`;
// `create { single in ... }` keeps its shape (the closure gets a promise, returns a cancellable run on cancel or
// after the promise was fulfilled), and the events given to the promise are renamed: RxSwift 5's `.error(e)` is
// `.failure(e)`, Completable's `.completed` is `.success(())`, Maybe's `.completed` is `.success(nil)`.

import SwiftSyntax

final class TraitRules: MigrationRule {
    override class var id: String { "traits" }

    static let traits: Set<String> = ["Single", "Maybe", "Completable"]

    override func rewrite(_ node: FunctionCallExprSyntax, original: FunctionCallExprSyntax) -> ExprSyntax? {
        if let promised = promiseEvent(node, original) { return promised }
        guard let member = original.calledExpression.as(MemberAccessExprSyntax.self) else { return nil }
        let name = member.declName.baseName.text
        var trait = original.staticRxBase
        var element = "_"
        if member.base?.is(GenericSpecializationExprSyntax.self) == true, let rewritten = node.rewrittenStaticElement {
            element = rewritten
        }
        var implicit = false
        if member.base == nil, let slot = Slots.kind(of: original, facts: facts),
            [.single, .maybe, .completable].contains(slot)
        {
            trait = slot == .single ? "Single" : slot == .maybe ? "Maybe" : "Completable"
            implicit = true
        }
        guard let trait, Self.traits.contains(trait) else { return nil }
        let texts = node.allArguments.map { $0.expression.trimmedDescription }
        let labels = node.allArguments.map(\.label)
        let type =
            implicit
            ? (trait == "Completable" ? "Completable" : trait)
            : trait == "Completable" ? "Completable<Error>" : "\(trait)<\(element), Error>"
        let text: String
        switch (name, labels) {
        case ("just", [""]) where trait != "Completable": text = "\(type)(\(texts[0]))"
        case ("error", [""]): text = "\(type)(error: \(texts[0]))"
        case ("empty", []) where trait != "Single": text = implicit ? ".empty" : "\(type).empty"
        case ("create", [""]) where !implicit && (trait == "Completable" || element != "_"):
            text = "\(type).create " + texts[0]
        case ("never", []):
            spot(original, "\(trait).never(): use Empty(completeImmediately: false) and convert it")
            return nil
        case ("zip", _):
            spot(original, "\(trait).zip: Publishers.Zip of the traits, then asSingle()")
            return nil
        default:
            return nil
        }
        return replace(node, of: original, with: text)
    }

    /// `single(.error(e))` → `single(.failure(e))`, `completable(.completed)` → `completable(.success(()))` for the
    /// promise of a trait's `create` closure.
    private func promiseEvent(_ node: FunctionCallExprSyntax, _ original: FunctionCallExprSyntax) -> ExprSyntax? {
        guard let name = original.calledExpression.as(DeclReferenceExprSyntax.self)?.baseName.text,
            original.arguments.count == 1, let trait = Self.trait(promising: name, around: original)
        else { return nil }
        let argument = node.arguments.first!.expression
        var text: String?
        if let call = argument.as(FunctionCallExprSyntax.self),
            let event = call.calledExpression.as(MemberAccessExprSyntax.self), event.base == nil,
            event.declName.baseName.text == "error", call.arguments.count == 1
        {
            text = ".failure(\(call.arguments.first!.expression.trimmedDescription))"
        } else if let event = argument.as(MemberAccessExprSyntax.self), event.base == nil,
            event.declName.baseName.text == "completed"
        {
            text = trait == "Maybe" ? ".success(nil)" : ".success(())"
        }
        guard let text else { return nil }
        let replacement = node.replacingArguments([(nil, parseExpression(text))])
        record(original, replacement)
        return ExprSyntax(replacement)
    }

    /// The trait whose `create` closure names its promise `name`, if `node` is inside one.
    static func trait(promising name: String, around node: some SyntaxProtocol) -> String? {
        for ancestor in node.ancestors {
            guard let closure = ancestor.as(ClosureExprSyntax.self) else { continue }
            guard let parameters = ClosureParts(closure).parameters, parameters.first == name else { continue }
            guard let call = closure.enclosingCall, call.calledName == "create",
                let trait = call.staticRxBase ?? implicitTrait(call), traits.contains(trait)
            else { return nil }
            return trait
        }
        return nil
    }

    private static func implicitTrait(_ call: FunctionCallExprSyntax) -> String? {
        guard call.calledExpression.as(MemberAccessExprSyntax.self)?.base == nil else { return nil }
        switch Slots.resultKind(enclosing: call) {
        case .single?: return "Single"
        case .maybe?: return "Maybe"
        case .completable?: return "Completable"
        default: return nil
        }
    }
}
