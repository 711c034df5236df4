// Where an expression's value goes, and what type that place declares: a `return` (or the single expression of a
// body) in a function, getter or closure with a declared result type, an initializer of a declaration with a type
// annotation, an assignment to a name the facts know. RxSwift code relies on every operator returning `Observable<T>`
// (or a Driver from a Driver); Combine's operators return their own types, so a value going into an
// `Observable<T>`-typed place needs `eraseToAnyPublisher()` (and `setFailureType(to: Error.self)` when it cannot
// fail), and into a `Driver<T>`-typed place `asDriver()`.

import SwiftSyntax

enum Slots {
    /// The RxSwift kind of the place `expression` (an original node) goes into, if the code declares it.
    static func kind(of expression: some SyntaxProtocol, facts: MigrationFacts) -> RxKind? {
        guard let parent = expression.parent else { return nil }
        if parent.is(ReturnStmtSyntax.self) { return resultKind(enclosing: parent) }
        if let initializer = parent.as(InitializerClauseSyntax.self),
            let binding = initializer.parent?.as(PatternBindingSyntax.self)
        {
            return binding.typeAnnotation.flatMap { kind(ofType: $0.type) }
        }
        if let item = parent.as(CodeBlockItemSyntax.self), let list = item.parent?.as(CodeBlockItemListSyntax.self),
            list.count == 1
        {
            // The single expression of a body returns it.
            if let closure = list.parent?.as(ClosureExprSyntax.self) {
                return closure.signature?.returnClause.flatMap { kind(ofType: $0.type) }
            }
            if let block = list.parent?.as(CodeBlockSyntax.self) {
                if let function = block.parent?.as(FunctionDeclSyntax.self) {
                    return function.signature.returnClause.flatMap { kind(ofType: $0.type) }
                }
                if let accessor = block.parent?.as(AccessorDeclSyntax.self), accessor.accessorSpecifier.text == "get" {
                    return resultKind(enclosing: accessor)
                }
            }
            if list.parent?.is(AccessorBlockSyntax.self) == true,
                let binding = list.parent?.parent?.as(PatternBindingSyntax.self)
            {
                return binding.typeAnnotation.flatMap { kind(ofType: $0.type) }
            }
        }
        if let list = parent.as(ExprListSyntax.self), list.count == 3, list.last?.id == expression.id,
            Array(list)[1].is(AssignmentExprSyntax.self), let target = list.first
        {
            return facts.kind(of: target)
        }
        return nil
    }

    /// The declared result kind of the function, getter or closure around `node`.
    static func resultKind(enclosing node: some SyntaxProtocol) -> RxKind? {
        for ancestor in node.ancestors {
            if let closure = ancestor.as(ClosureExprSyntax.self) {
                return closure.signature?.returnClause.flatMap { kind(ofType: $0.type) }
            }
            if let function = ancestor.as(FunctionDeclSyntax.self) {
                return function.signature.returnClause.flatMap { kind(ofType: $0.type) }
            }
            if let binding = ancestor.as(PatternBindingSyntax.self) {
                return binding.typeAnnotation.flatMap { kind(ofType: $0.type) }
            }
            if ancestor.is(InitializerDeclSyntax.self) || ancestor.is(SubscriptDeclSyntax.self) { return nil }
        }
        return nil
    }

    static func kind(ofType type: TypeSyntax) -> RxKind? {
        if type.is(OptionalTypeSyntax.self) { return nil }
        if let identifier = type.as(IdentifierTypeSyntax.self), identifier.name.text == "SharedSequence",
            let strategy = identifier.genericArgumentClause?.arguments.first?.argument.trimmedDescription
        {
            switch strategy {
            case "DriverSharingStrategy": return .driver
            case "SignalSharingStrategy": return .signal
            default: return .infallible
            }
        }
        return rxTypeName(type).flatMap { RxKind(typeName: $0) }
    }
}
