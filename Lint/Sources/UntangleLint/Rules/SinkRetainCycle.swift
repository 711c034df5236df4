// sink-retain-cycle, assign-on-self, rx-subscribe-retain-cycle: a subscription stored on `self` whose closure
// retains `self`.

import SwiftSyntax

/// Shared by the Combine and RxSwift variants: a call named `method` whose closures (or method references: `self.f`,
/// or a bare `f` naming a method declared in the file) capture `self` strongly, and whose result is stored
/// (`store(in:)`, `disposed(by:)`, a property). The subscription also keeps the closures of the operators above it in
/// the chain (`map`, `flatMap`, `filter`, `scan`, `handleEvents`...): each one that captures `self` strongly is
/// reported at the operator.
package class RetainCycleVisitor: LintVisitor {
    var methods: Set<String> { [] }
    var requiredLabel: String? { nil }

    /// Operators whose closures the subscription keeps for as long as it lives.
    static let operatorNames: Set<String> = [
        "map", "tryMap", "compactMap", "tryCompactMap", "flatMap", "flatMapLatest", "flatMapFirst", "concatMap",
        "switchMap", "filter", "tryFilter", "scan", "tryScan", "handleEvents", "do", "removeDuplicates", "catch",
        "tryCatch", "mapError", "withLatestFrom", "drop", "prefix", "first", "last", "reduce", "tryReduce",
    ]

    override package class var visitedKinds: Set<SyntaxKind> { [.functionCallExpr, .sourceFile] }

    private var fileMethods: Set<String> = []

    override package func visit(_ node: SourceFileSyntax) -> SyntaxVisitorContinueKind {
        fileMethods = context.declarations.methods
        return .visitChildren
    }

    override package func visit(_ node: FunctionCallExprSyntax) -> SyntaxVisitorContinueKind {
        guard let name = node.calledName, methods.contains(name), node.receiver != nil else { return .visitChildren }
        if let label = requiredLabel, !node.argumentLabels.contains(label) { return .visitChildren }
        guard node.inReferenceTypeOrExtension, resultIsStored(node), !endsItself(node) else { return .visitChildren }
        let strongClosures = node.closures.filter { !$0.weakensSelf && $0.usesSelfStrongly }
        let methodReference = node.arguments.contains { isMethodReference($0.expression) }
        if !strongClosures.isEmpty || methodReference {
            reportCall(node, edits: methodReference ? [] : weakSelfFix(strongClosures))
        }
        for upstream in node.chainBelow {
            guard let operatorName = upstream.calledName, Self.operatorNames.contains(operatorName) else { continue }
            let captures =
                upstream.closures.contains { !$0.weakensSelf && $0.usesSelfStrongly }
                || upstream.arguments.contains { isMethodReference($0.expression) }
            if captures {
                reportCall(
                    upstream,
                    message:
                        "\(operatorName) closure captures self strongly in a chain whose subscription is stored on "
                        + "self (the subscription keeps every operator's closure: a retain cycle); capture [weak self]")
            }
        }
        return .visitChildren
    }

    /// Whether the chain ends on its own at a point tied to `self`'s life or after one value (`takeUntil(...)`,
    /// `take(until:)`, `prefix(untilOutputFrom:)`, `first()`, `take(1)`): the subscription then releases its closures.
    private func endsItself(_ node: FunctionCallExprSyntax) -> Bool {
        node.chainBelow.contains { call in
            let name = call.calledName ?? ""
            let labels = call.argumentLabels
            return name == "takeUntil" || (name == "take" && labels.first == "until")
                || (name == "prefix" && labels.first == "untilOutputFrom") || (name == "first" && labels.isEmpty)
                || (name == "take" && labels == [""] && call.arguments.first?.expression.trimmedDescription == "1")
        }
    }

    /// `self.handle` or a bare `handle` naming a method of the file's types: passing it captures `self` strongly.
    private func isMethodReference(_ expression: ExprSyntax) -> Bool {
        if let member = expression.as(MemberAccessExprSyntax.self) {
            return member.base?.trimmedDescription == "self"
        }
        if let reference = expression.as(DeclReferenceExprSyntax.self) {
            let name = reference.baseName.text
            return fileMethods.contains(name) && !isParameter(name, around: expression)
        }
        return false
    }

    /// Whether `name` is a parameter of an enclosing function, initializer or closure (which shadows a method).
    private func isParameter(_ name: String, around node: ExprSyntax) -> Bool {
        for ancestor in node.ancestors {
            if let function = ancestor.as(FunctionDeclSyntax.self) {
                return function.signature.parameterClause.parameters.contains {
                    ($0.secondName ?? $0.firstName).text == name
                }
            }
            if let initializer = ancestor.as(InitializerDeclSyntax.self) {
                return initializer.signature.parameterClause.parameters.contains {
                    ($0.secondName ?? $0.firstName).text == name
                }
            }
            if let closure = ancestor.as(ClosureExprSyntax.self),
                closure.signature?.parameterClause?.trimmedDescription.contains(name) == true
            {
                return true
            }
        }
        return false
    }

    /// `{ value in ... }` becomes `{ [weak self] value in guard let self else { return } ... }`; not offered for a
    /// closure that already has a capture list or uses `$0` (adding `in` would break it).
    private func weakSelfFix(_ closures: [ClosureExprSyntax]) -> [Edit] {
        var edits: [Edit] = []
        for closure in closures {
            guard closure.signature?.capture == nil, !closure.usesAnonymousArguments,
                let first = closure.statements.first
            else { return [] }
            let indent = String(
                first.leadingTrivia.description.split(separator: "\n", omittingEmptySubsequences: false).last ?? "")
            let guardLine = "guard let self else { return }"
            if let signature = closure.signature {
                edits.append(
                    Edit(
                        start: signature.positionAfterSkippingLeadingTrivia.utf8Offset,
                        end: signature.positionAfterSkippingLeadingTrivia.utf8Offset, replacement: "[weak self] "))
                let separator = first.leadingTrivia.contains(where: \.isNewline) ? "\n" + indent : " "
                edits.append(
                    Edit(
                        start: first.positionAfterSkippingLeadingTrivia.utf8Offset,
                        end: first.positionAfterSkippingLeadingTrivia.utf8Offset,
                        replacement: guardLine + (separator == " " ? "; " : separator)))
            } else {
                let multiline = first.leadingTrivia.contains(where: \.isNewline)
                edits.append(
                    Edit(
                        start: closure.leftBrace.endPositionBeforeTrailingTrivia.utf8Offset,
                        end: first.positionAfterSkippingLeadingTrivia.utf8Offset,
                        replacement: multiline
                            ? " [weak self] in\n\(indent)\(guardLine)\n\(indent)" : " [weak self] in \(guardLine); "))
            }
        }
        return edits
    }
}

/// `sink` closures (or `self.method` references) that capture `self` strongly while the `AnyCancellable` is stored on
/// `self`: `self` → cancellable → sink → closure → `self`, a cycle that outlives every owner. Syntax cannot see the
/// type of an extension's `Self`: in an extension of a struct there is no cycle.
package final class SinkRetainCycle: RetainCycleVisitor {
    package static let description = RuleDescription(
        id: "sink-retain-cycle", severity: .warning,
        message:
            "sink closure captures self strongly while its AnyCancellable is stored on self (a retain cycle: self "
            + "never deinits); capture [weak self]",
        visitor: SinkRetainCycle.self)

    override var methods: Set<String> { ["sink"] }
}

/// RxSwift's `subscribe(onNext:)` with the same cycle through `disposed(by: disposeBag)`.
package final class RxSubscribeRetainCycle: RetainCycleVisitor {
    package static let description = RuleDescription(
        id: "rx-subscribe-retain-cycle", severity: .warning,
        message:
            "RxSwift subscribe closure captures self strongly while the Disposable is kept by self's DisposeBag (a "
            + "retain cycle); capture [weak self]",
        visitor: RxSubscribeRetainCycle.self)

    override var methods: Set<String> { ["subscribe", "subscribeNext", "bind", "drive"] }
    override var requiredLabel: String? { nil }

    override package func visit(_ node: FunctionCallExprSyntax) -> SyntaxVisitorContinueKind {
        // Only RxSwift's closure-taking spellings: `subscribe(onNext:)` etc., never Combine's `subscribe(subscriber)`.
        let labels = node.argumentLabels
        // A Single or Maybe (`onSuccess`/`onFailure`) ends after one event, which disposes the subscription and
        // releases its closures: the cycle lasts until the result arrives, it does not leak.
        if labels.contains("onSuccess") || labels.contains("onFailure") { return .visitChildren }
        let rxLabels = ["onNext", "onError", "onCompleted", "onDisposed", "onSubscribe"]
        guard
            labels.contains(where: { rxLabels.contains($0) })
                || (node.calledName == "drive" || node.calledName == "bind") && node.trailingClosure != nil
                // `subscribe { event in }`: RxSwift's event subscription (Combine's `subscribe` takes a subscriber).
                || node.calledName == "subscribe" && node.arguments.isEmpty && node.trailingClosure != nil
                // RxSwift 2's `subscribeNext { }`.
                || node.calledName == "subscribeNext" && node.trailingClosure != nil
        else { return .visitChildren }
        return super.visit(node)
    }
}

/// `assign(to: \.x, on: self)` stored on `self`: the subscriber retains `self` strongly, a retain cycle. The fix,
/// where `x` is `@Published` in the same file, is `assign(to: &$x)`, which ties the subscription to the property.
package final class AssignOnSelf: LintVisitor {
    package static let description = RuleDescription(
        id: "assign-on-self", severity: .warning,
        message:
            "assign(to:on: self) retains self strongly while the subscription is stored on self (a retain cycle); use "
            + "assign(to: &$property) on a @Published property",
        visitor: AssignOnSelf.self)

    private var published: Set<String> = []

    override package class var visitedKinds: Set<SyntaxKind> { [.functionCallExpr, .sourceFile] }

    override package func visit(_ node: SourceFileSyntax) -> SyntaxVisitorContinueKind {
        published = context.declarations.published
        return .visitChildren
    }

    override package func visit(_ node: FunctionCallExprSyntax) -> SyntaxVisitorContinueKind {
        guard node.calledName == "assign", node.argument("on")?.trimmedDescription == "self",
            node.inReferenceTypeOrExtension, resultIsStored(node)
        else { return .visitChildren }
        reportCall(node, edits: fix(node))
        return .visitChildren
    }

    /// `x.assign(to: \.name, on: self).store(in: &c)` → `x.assign(to: &$name)` when `name` is `@Published` here.
    private func fix(_ node: FunctionCallExprSyntax) -> [Edit] {
        guard let keyPath = node.argument("to")?.as(KeyPathExprSyntax.self), keyPath.root == nil,
            keyPath.components.count == 1,
            let property = keyPath.components.first?.component.as(KeyPathPropertyComponentSyntax.self)?.declName
                .baseName.text,
            published.contains(property), let receiver = node.receiver,
            let member = node.parent?.as(MemberAccessExprSyntax.self),
            let store = member.parent?.as(FunctionCallExprSyntax.self), store.calledName == "store"
        else { return [] }
        let dot = node.calledExpression.as(MemberAccessExprSyntax.self)!.period
        let replacement =
            receiver.description + dot.trimmedDescription + "assign(to: &$\(property))"
        return [
            Edit(
                start: receiver.position.utf8Offset, end: store.endPositionBeforeTrailingTrivia.utf8Offset,
                replacement: replacement)
        ]
    }
}
