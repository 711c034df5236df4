// Values going into declared RxSwift-typed places (see `Slots`): into an `Observable<T>` (now `AnyPublisher<T, Error>`)
// a value gets `eraseToAnyPublisher()` (a subject was an Observable subclass in RxSwift; a chain of operators returned
// Observable), and `setFailureType(to: Error.self)` first when it cannot fail (a relay, `Just`); into a
// `Driver<T>` a value that is not already a Driver gets `asDriver()` (RxSwift's `driver.map { }` is a Driver;
// Untangle's is a plain publisher that still delivers on the main thread), into a `Signal<T>` `asSignal()`.

import SwiftSyntax

final class SlotRules: MigrationRule {
    override class var id: String { "slots" }

    override func finish(_ node: ExprSyntax, original: ExprSyntax) -> ExprSyntax? {
        guard let slot = Slots.kind(of: original, facts: facts) else { return nil }
        let known = facts.kind(of: original)
        let isReference =
            original.is(DeclReferenceExprSyntax.self)
            || (original.as(MemberAccessExprSyntax.self).map { $0.base != nil } ?? false)
        var appended: [String] = []
        switch slot {
        case .observable, .infallible:
            if isReference && known?.isSubject != true { return nil }
            if let call = node.as(FunctionCallExprSyntax.self), let base = call.receiver,
                base.trimmedDescription.hasPrefix("AnyPublisher")
            {
                return nil  // `AnyPublisher<T, Error>.create { }` is one already.
            }
            let failure = facts.failure(of: original)
            if slot == .observable && failure == .never {
                appended.append("setFailureType(to: Error.self)")
            }
            appended.append("eraseToAnyPublisher()")
        case .driver, .signal:
            if known == slot || isReference { return nil }
            appended.append(slot == .driver ? "asDriver()" : "asSignal()")
        default:
            return nil
        }
        var base = node.with(\.leadingTrivia, []).with(\.trailingTrivia, [])
        // An `eraseToAnyPublisher()` already there (from `asObservable()`) stays last.
        if let call = base.as(FunctionCallExprSyntax.self), call.methodName == "eraseToAnyPublisher",
            call.arguments.isEmpty, let receiver = call.receiver
        {
            if appended.count == 1 { return nil }
            base = receiver
        }
        let separator = Self.chainSeparator(of: base)
        let replacementText = base.description + appended.map { separator + "." + $0 }.joined()
        return replace(node, of: original, with: replacementText)
    }

    /// The line break and indentation before the last `.operator` of a chain written one operator per line ("" for
    /// a chain on one line).
    static func chainSeparator(of expression: ExprSyntax) -> String {
        var current: ExprSyntax? = expression
        while let expression = current {
            if let call = expression.as(FunctionCallExprSyntax.self) {
                current = call.calledExpression
            } else if let member = expression.as(MemberAccessExprSyntax.self) {
                let trivia = member.period.leadingTrivia
                return trivia.contains(where: \.isNewline) ? trivia.description : ""
            } else {
                return ""
            }
        }
        return ""
    }
}
