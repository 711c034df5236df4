// Editing calls and closures while keeping their layout: renaming a method, relabelling or replacing arguments in the
// slots (line breaks, indentation, comments) the original arguments had, and taking a closure apart (captures,
// parameters, body) to build another closure around its body.

import SwiftParser
import SwiftSyntax

extension FunctionCallExprSyntax {
    /// The method's name in `receiver.name(...)`; nil for a free call.
    var methodName: String? {
        calledExpression.as(MemberAccessExprSyntax.self)?.declName.baseName.text
    }

    /// This call with its method renamed (`a.observeOn(s)` → `a.receive(on: s)` starts with this).
    func renamingMethod(_ name: String) -> FunctionCallExprSyntax {
        guard let member = calledExpression.as(MemberAccessExprSyntax.self) else { return self }
        let token = member.declName.baseName.with(\.tokenKind, .identifier(name))
        return with(\.calledExpression, ExprSyntax(member.with(\.declName, member.declName.with(\.baseName, token))))
    }

    /// This call with its (non-trailing-closure) arguments replaced by `items` (label, expression), laid out in the
    /// slots the original arguments occupied; extra arguments repeat the last slot's layout.
    func replacingArguments(
        _ items: [(label: String?, expression: ExprSyntax)], slots: [LabeledExprSyntax]? = nil
    ) -> FunctionCallExprSyntax {
        let slots = slots ?? Array(arguments)
        var elements: [LabeledExprSyntax] = []
        for (index, item) in items.enumerated() {
            let slot = index < slots.count ? slots[index] : slots.last
            let leading = slot.map { $0.leadingTrivia } ?? []
            let isLast = index == items.count - 1
            var comma: TokenSyntax?
            if !isLast {
                let slotComma =
                    index < slots.count - 1 ? slots[index].trailingComma : slots.dropLast().last?.trailingComma
                comma = slotComma ?? .commaToken(trailingTrivia: .space)
            }
            var element: LabeledExprSyntax
            if let label = item.label {
                element = LabeledExprSyntax(
                    label: .identifier(label), colon: .colonToken(trailingTrivia: .space),
                    expression: item.expression.trimmed, trailingComma: comma)
            } else {
                element = LabeledExprSyntax(expression: item.expression.trimmed, trailingComma: comma)
            }
            // A multi-line closure argument keeps its own interior; only the slot's leading trivia moves.
            element = element.with(\.leadingTrivia, leading)
            if isLast, let lastSlot = slots.last {
                element = element.with(\.trailingTrivia, lastSlot.trailingComma == nil ? lastSlot.trailingTrivia : [])
            }
            elements.append(element)
        }
        var call = with(\.arguments, LabeledExprListSyntax(elements))
        if call.leftParen == nil {
            call = call.with(\.leftParen, .leftParenToken()).with(\.rightParen, .rightParenToken())
            if let member = call.calledExpression.as(MemberAccessExprSyntax.self) {
                // `drive { }` → `sink(receiveValue: ...)`: the name's trailing space now precedes nothing.
                call = call.with(\.calledExpression, ExprSyntax(member.with(\.trailingTrivia, [])))
            }
        }
        return call
    }

    /// This call with `closure` as its only argument, written as a trailing closure (`drive { ... }`).
    func withOnlyTrailingClosure(_ closure: ClosureExprSyntax) -> FunctionCallExprSyntax {
        var call = with(\.arguments, []).with(\.leftParen, nil).with(\.rightParen, nil)
            .with(\.additionalTrailingClosures, [])
        call = call.with(\.calledExpression, call.calledExpression.with(\.trailingTrivia, []))
        return call.with(
            \.trailingClosure, closure.with(\.leadingTrivia, .space).with(\.trailingTrivia, trailingTrivia))
    }

    /// The first generic argument of the (already rewritten) type a static method is called on: `Int` for
    /// `AnyPublisher<Int, Error>.create`, the rewriting of `Observable<Int>.create`'s type.
    var rewrittenStaticElement: String? {
        var callee = ExprSyntax(calledExpression)
        if let member = callee.as(MemberAccessExprSyntax.self), let base = member.base { callee = base }
        return callee.as(GenericSpecializationExprSyntax.self)?.genericArgumentClause.arguments.first?.argument
            .trimmedDescription
    }

    /// Every argument, the trailing closures included, as (label, expression): `drive { }` gives `[("", {...})]`.
    var allArguments: [(label: String, expression: ExprSyntax)] {
        var result = arguments.map { ($0.label?.text ?? "", $0.expression) }
        if let trailing = trailingClosure { result.append(("", ExprSyntax(trailing))) }
        for extra in additionalTrailingClosures { result.append((extra.label.text, ExprSyntax(extra.closure))) }
        return result
    }

    /// This call with no trailing closures (they are moved into the argument list by the caller).
    func droppingTrailingClosures() -> FunctionCallExprSyntax {
        var call = with(\.trailingClosure, nil).with(\.additionalTrailingClosures, [])
        if trailingClosure != nil, let rightParen = call.rightParen {
            // `a.drive(x) { }` → `a.drive(x)`: the space before the closure goes with it.
            call = call.with(\.rightParen, rightParen.with(\.trailingTrivia, []))
        }
        if call.leftParen == nil {
            // `a.drop { }` → `a.drop()`: the space before the closure goes with it.
            call = call.with(\.leftParen, .leftParenToken()).with(\.rightParen, .rightParenToken())
            call = call.with(\.calledExpression, call.calledExpression.with(\.trailingTrivia, []))
        }
        return call
    }
}

/// A closure taken apart: what a rewrite needs to build another closure around its body.
struct ClosureParts {
    /// The capture list's items, as written (`weak self`, `unowned owner = self`).
    var captures: [String]
    /// The parameter names, nil when the closure has no signature (it may use `$0`).
    var parameters: [String]?
    /// The body statements' text, layout kept (with the line break before the first statement, if any).
    var body: String
    /// The text before the closing brace (its line break and indentation).
    var closingTrivia: String
    /// Whether the body spans several lines.
    var isMultiline: Bool { body.contains("\n") }
    /// The indentation of the body's first line.
    var bodyIndentation: String

    init(_ closure: ClosureExprSyntax) {
        captures = closure.signature?.capture?.items.map { $0.with(\.trailingComma, nil).trimmedDescription } ?? []
        if let clause = closure.signature?.parameterClause {
            switch clause {
            case .simpleInput(let list): parameters = list.map(\.name.text)
            case .parameterClause(let list):
                parameters = list.parameters.map { ($0.secondName ?? $0.firstName).text }
            }
        } else {
            parameters = nil
        }
        body = closure.statements.description
        closingTrivia = closure.rightBrace.leadingTrivia.description
        let leading = closure.statements.first?.leadingTrivia.description ?? ""
        bodyIndentation = String(leading.split(separator: "\n", omittingEmptySubsequences: false).last ?? "")
        if closure.statements.isEmpty { body = "" }
    }

    /// The body with `$0` (outside nested closures) renamed to `name`.
    static func renamingAnonymousArgument(in closure: ClosureExprSyntax, to name: String) -> String {
        AnonymousArgumentRenamer(name).rewrite(closure.statements).description
    }
}

private final class AnonymousArgumentRenamer: SyntaxRewriter {
    let name: String

    init(_ name: String) {
        self.name = name
        super.init(viewMode: .sourceAccurate)
    }

    override func visit(_ node: ClosureExprSyntax) -> ExprSyntax { ExprSyntax(node) }

    override func visit(_ token: TokenSyntax) -> TokenSyntax {
        if case .dollarIdentifier("$0") = token.tokenKind { return token.with(\.tokenKind, .identifier(name)) }
        return token
    }
}

/// `text` with every line after the first indented by `extra` more.
func indentingContinuationLines(_ text: String, by extra: String) -> String {
    var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    for index in lines.indices.dropFirst() where !lines[index].allSatisfy({ $0 == " " || $0 == "\t" }) {
        lines[index] = extra + lines[index]
    }
    return lines.joined(separator: "\n")
}

/// Whether an expression is a closure literal.
func isClosure(_ expression: ExprSyntax) -> Bool {
    expression.is(ClosureExprSyntax.self)
}

/// Whether `identifier` occurs as a token in `node`.
func mentions(_ node: some SyntaxProtocol, _ identifier: String) -> Bool {
    node.tokens(viewMode: .sourceAccurate).contains { $0.text == identifier }
}
