// What the families leave that still names RxSwift or RxCocoa gets a reason: RxCocoa's reactive extensions
// (`button.rx.tap`, `textField.rx.text`), which have no Untangle counterpart (UIKit controls publish nothing by
// themselves), and RxSwift test helpers (`toBlocking()`).

import SwiftSyntax

final class LeftoverRules: MigrationRule {
    override class var id: String { "leftovers" }

    override func rewrite(_ node: MemberAccessExprSyntax, original: MemberAccessExprSyntax) -> ExprSyntax? {
        guard let base = original.base else { return nil }
        let name = original.declName.baseName.text
        if name == "rx", let outer = original.parent?.as(MemberAccessExprSyntax.self) {
            // A binder given to bind(to:)/drive/emit(to:) is the subscribe rules' (they rewrite or mark it).
            if Self.isBindingTarget(outer) { return nil }
            let property = outer.declName.baseName.text
            if property == "disposeBag" {
                noteDisposeBag(original)
                return nil
            }
            spot(
                original,
                "RxCocoa's \(base.trimmedDescription).rx.\(property): no Untangle counterpart; publish it yourself "
                    + "(a relay fed by the control's target-action or delegate)")
        } else if name == "toBlocking" {
            spot(original, "RxBlocking's toBlocking(): wait on the publisher's values or use UntangleTesting")
        }
        return nil
    }

    /// Whether `node` (`x.rx.y`, or the call `x.rx.items(...)`) is the argument of a bind(to:), drive or emit(to:).
    static func isBindingTarget(_ node: some SyntaxProtocol) -> Bool {
        var current = Syntax(node)
        while let parent = current.parent,
            parent.is(FunctionCallExprSyntax.self) || parent.is(MemberAccessExprSyntax.self)
        {
            current = parent
        }
        guard current.parent?.is(LabeledExprSyntax.self) == true,
            let call = current.parent?.parent?.parent?.as(FunctionCallExprSyntax.self)
        else { return false }
        return ["bind", "drive", "emit"].contains(call.calledName ?? "")
    }

    private var notedDisposeBag = false

    /// NSObject+Rx's `rx.disposeBag` is used all over a file: one spot, at the first use, says what to do for all.
    private func noteDisposeBag(_ node: some SyntaxProtocol) {
        guard !notedDisposeBag else { return }
        notedDisposeBag = true
        spot(
            node,
            "NSObject+Rx's rx.disposeBag (here and in the rest of this file): give the object a CancelBag property "
                + "(released with it, like the bag) and store into that")
    }

    /// `rx.disposeBag` inside a type (NSObject+Rx): no `x.` before `rx`.
    override func finish(_ node: ExprSyntax, original: ExprSyntax) -> ExprSyntax? {
        guard let reference = original.as(DeclReferenceExprSyntax.self), reference.baseName.text == "rx",
            let outer = reference.parent?.as(MemberAccessExprSyntax.self), outer.base?.id == reference.id
        else { return nil }
        if outer.declName.baseName.text == "disposeBag" {
            noteDisposeBag(reference)
        } else if Self.isBindingTarget(outer) {
            return nil
        } else {
            spot(
                reference,
                "RxCocoa's rx.\(outer.declName.baseName.text): no Untangle counterpart; publish it yourself (a relay fed "
                    + "by the control's target-action or delegate)")
        }
        return nil
    }
}
