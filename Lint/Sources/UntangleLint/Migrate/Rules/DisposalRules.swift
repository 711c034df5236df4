// Disposal: `DisposeBag()` → `CancelBag()` (thread-safe like DisposeBag, and it cancels everything when released, so
// `bag = DisposeBag()` to reset keeps working), `disposed(by: bag)` → `store(in: bag)`, `dispose()` → `cancel()`,
// `Disposables.create { ... }` → `AnyCancellable { ... }` (the hook runs on cancel; inside `create` also at completion
// and error, as RxSwift's does), `Disposables.create(a, b)` → a composite, `CompositeDisposable` →
// `CompositeCancellable`, `SerialDisposable`/`SingleAssignmentDisposable` → `SerialCancellable` (`disposable = x`
// and `setDisposable(x)` → `replace(with: x)`, `isDisposed` → `isCancelled`), `bag.insert(a, b)` →
// `bag.insert { a; b }`.

import SwiftSyntax

final class DisposalRules: MigrationRule {
    override class var id: String { "disposal" }

    static let constructors: [String: String] = [
        "DisposeBag": "CancelBag", "CompositeDisposable": "CompositeCancellable",
        "SerialDisposable": "SerialCancellable", "SingleAssignmentDisposable": "SerialCancellable",
    ]

    override func rewrite(_ node: FunctionCallExprSyntax, original: FunctionCallExprSyntax) -> ExprSyntax? {
        if let reference = node.calledExpression.as(DeclReferenceExprSyntax.self),
            let name = Self.constructors[reference.baseName.text]
        {
            var call = node.with(
                \.calledExpression,
                ExprSyntax(reference.with(\.baseName, reference.baseName.with(\.tokenKind, .identifier(name)))))
            if name == "CompositeCancellable", !node.arguments.isEmpty {
                // `CompositeDisposable(a, b)` / `CompositeDisposable(disposables: [a, b])` → `CompositeCancellable([a, b])`.
                let list =
                    node.arguments.first?.label?.text == "disposables"
                    ? node.arguments.first!.expression.trimmedDescription
                    : "[" + node.arguments.map { $0.expression.trimmedDescription }.joined(separator: ", ") + "]"
                call = call.replacingArguments([(nil, parseExpression(list))])
            }
            record(original, call)
            return ExprSyntax(call)
        }
        if original.staticTypeName == "Disposables", node.methodName == "create" {
            return disposablesCreate(node, original)
        }
        guard let name = node.methodName, let receiver = original.receiver else { return nil }
        let replacement: FunctionCallExprSyntax
        switch name {
        case "disposed" where node.argumentLabels == ["by"]:
            replacement = node.renamingMethod("store").replacingArguments([("in", node.arguments.first!.expression)])
        case "dispose" where node.arguments.isEmpty && node.trailingClosure == nil:
            replacement = node.renamingMethod("cancel")
        case "setDisposable" where node.arguments.count == 1:
            replacement = node.renamingMethod("replace").replacingArguments([("with", node.arguments.first!.expression)]
            )
        case "insert" where facts.kind(of: receiver) == .disposeBag && node.arguments.count > 1:
            let items = node.arguments.map { $0.expression.trimmedDescription }.joined(separator: "; ")
            replacement = node.with(\.arguments, []).with(\.leftParen, nil).with(\.rightParen, nil)
                .with(
                    \.trailingClosure,
                    parseExpression("{ \(items) }").as(ClosureExprSyntax.self)!.with(
                        \.leadingTrivia, .space))
        default:
            return nil
        }
        record(original, replacement)
        return ExprSyntax(replacement)
    }

    private func disposablesCreate(_ node: FunctionCallExprSyntax, _ original: FunctionCallExprSyntax) -> ExprSyntax? {
        let arguments = node.allArguments
        let text: String
        if arguments.isEmpty {
            text = "AnyCancellable {}"
        } else if arguments.count == 1, arguments[0].label.isEmpty, let closure = node.trailingClosure {
            text = "AnyCancellable " + closure.trimmedDescription
        } else if arguments.count == 1, arguments[0].label == "with" {
            text = "AnyCancellable(\(arguments[0].expression.trimmedDescription))"
        } else if arguments.count == 1, arguments[0].label.isEmpty, arguments[0].expression.is(ArrayExprSyntax.self) {
            text = "AnyCancellable(CompositeCancellable(\(arguments[0].expression.trimmedDescription)))"
        } else if arguments.allSatisfy({ $0.label.isEmpty }) {
            let items = arguments.map { $0.expression.trimmedDescription }.joined(separator: ", ")
            text = "AnyCancellable(CompositeCancellable([\(items)]))"
        } else {
            return nil
        }
        return replace(node, of: original, with: text)
    }

    /// `composite.isDisposed` → `composite.isCancelled` on a CompositeDisposable or SerialDisposable (both
    /// UntangleExtras' counterparts say `isCancelled`).
    override func rewrite(_ node: MemberAccessExprSyntax, original: MemberAccessExprSyntax) -> ExprSyntax? {
        guard node.declName.baseName.text == "isDisposed", let base = original.base,
            [.compositeDisposable, .serialDisposable, .singleAssignmentDisposable].contains(facts.kind(of: base))
        else { return nil }
        let replacement = node.with(\.declName, node.declName.with(\.baseName, .identifier("isCancelled")))
        record(original, replacement)
        return ExprSyntax(replacement)
    }

    /// `serial.disposable = x` → `serial.replace(with: x)`.
    override func rewrite(_ node: SequenceExprSyntax, original: SequenceExprSyntax) -> ExprSyntax? {
        let elements = Array(node.elements)
        let originals = Array(original.elements)
        guard elements.count == 3, elements[1].is(AssignmentExprSyntax.self),
            let target = elements[0].as(MemberAccessExprSyntax.self), target.declName.baseName.text == "disposable",
            let base = target.base, let originalBase = originals[0].as(MemberAccessExprSyntax.self)?.base,
            [.serialDisposable, .singleAssignmentDisposable].contains(facts.kind(of: originalBase))
                || originalBase.trimmedDescription.lowercased().contains("serial")
        else { return nil }
        let replacement = parseExpression(
            "\(base.trimmedDescription).replace(with: \(elements[2].trimmedDescription))"
        ).withTrivia(of: node)
        record(original, replacement)
        return replacement
    }
}

extension FunctionCallExprSyntax {
    /// `Disposables` in `Disposables.create()`: the type a static method is called on (by name, no generics).
    var staticTypeName: String? {
        guard let member = calledExpression.as(MemberAccessExprSyntax.self), var base = member.base else { return nil }
        if let generic = base.as(GenericSpecializationExprSyntax.self) { base = generic.expression }
        return base.as(DeclReferenceExprSyntax.self)?.baseName.text
    }
}
