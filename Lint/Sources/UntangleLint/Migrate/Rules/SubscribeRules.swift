// Subscribing: `subscribe(onNext:onError:onCompleted:onDisposed:)` (and the traits' `onSuccess:`/`onFailure:`),
// `subscribe(with:onNext:...)`, `bind(to:)`, `bind(onNext:)`, `drive(...)`, `emit(...)`.
//
// - The handlers become `sink(receiveCompletion:receiveValue:)` (just `sink(receiveValue:)` when the source provably
//   cannot fail and nothing waits for its end). `onDisposed:` becomes `handleTermination(_:)` in front of the sink:
//   it runs after the completion was delivered, or on cancel, as RxSwift's does.
// - A subscription whose result RxSwift code drops (`_ = o.subscribe(...)`, or a bare statement) lives until the
//   source ends in RxSwift; a dropped `AnyCancellable` would cancel it at once. Such a subscription becomes
//   `o.subscribe(Subscribers.Sink(...))`, which lives until the source ends, as before.
// - `bind(to: relay)` is `subscribe(relay)` (after `assertNoFailure()` when the source may fail: RxSwift stops the
//   program on a bound error in debug builds); `bind(to: subject)` is `subscribe(subject)`; a binder
//   (`label.rx.text`) is `assign(to: \.text, on: label, ownership: .weak)` on the main thread, as RxCocoa's binders
//   assign there and hold their object weakly.

import SwiftSyntax

final class SubscribeRules: MigrationRule {
    override class var id: String { "subscribe" }

    static let handlerLabels: Set<String> = [
        "onNext", "onError", "onCompleted", "onDisposed", "onSuccess", "onFailure", "with",
    ]

    override func rewrite(_ node: FunctionCallExprSyntax, original: FunctionCallExprSyntax) -> ExprSyntax? {
        guard let name = node.methodName, let receiver = original.receiver else { return nil }
        switch name {
        case "subscribe": return subscribe(node, original, failure: facts.failure(of: receiver), driver: false)
        case "drive", "emit": return drive(node, original)
        case "bind": return bind(node, original)
        default: return nil
        }
    }

    /// `_ = o.subscribe(Subscribers.Sink(...))` (what a dropped `_ = o.subscribe(onNext:)` became): Combine's
    /// `subscribe(_:)` returns nothing, so the `_ =` goes.
    override func rewrite(_ node: SequenceExprSyntax, original: SequenceExprSyntax) -> ExprSyntax? {
        let elements = Array(node.elements)
        guard elements.count == 3, elements[0].is(DiscardAssignmentExprSyntax.self),
            elements[1].is(AssignmentExprSyntax.self), let call = elements[2].as(FunctionCallExprSyntax.self),
            call.methodName == "subscribe", call.arguments.count == 1,
            call.arguments.first?.expression.trimmedDescription.hasPrefix("Subscribers.Sink(") == true
        else { return nil }
        return ExprSyntax(call).withTrivia(of: node)
    }

    // MARK: subscribe(onNext:...)

    private func subscribe(
        _ node: FunctionCallExprSyntax, _ original: FunctionCallExprSyntax, failure: FailureKind, driver: Bool
    ) -> ExprSyntax? {
        var arguments = node.allArguments
        let labels = arguments.map(\.label)
        if labels.count == 1, labels[0].isEmpty, isClosure(arguments[0].expression), !driver {
            spot(
                original,
                "subscribe with an Event closure: use sink(receiveCompletion:receiveValue:), or materialize() and "
                    + "switch over .value/.completion")
            return nil
        }
        if driver, labels.count == 1, labels[0].isEmpty {
            arguments[0].label = "onNext"
        }
        guard labels.allSatisfy({ Self.handlerLabels.contains($0) || ($0.isEmpty && driver) }) else { return nil }
        func handler(_ label: String) -> ExprSyntax? { arguments.first { $0.label == label }?.expression }
        var onNext = handler("onNext") ?? handler("onSuccess")
        var onError = handler("onError") ?? handler("onFailure")
        var onCompleted = handler("onCompleted")
        let onDisposed = handler("onDisposed")
        var call = node
        if let onSuccess = handler("onSuccess"), let empty = onCompleted {
            // Maybe's subscribe(onSuccess:onError:onCompleted:): RxSwift calls onCompleted only for a Maybe that ends
            // without a value; UntangleExtras' Maybe (a publisher) finishes after its value too. An empty Maybe
            // becomes a nil value at its end (`replaceEmpty(with: nil)`), which runs onCompleted's body.
            if handler("with") != nil {
                spot(
                    original, "Maybe's subscribe(with:onSuccess:onCompleted:): run onCompleted only when no value came")
                return nil
            }
            call = call.insertingBeforeMethod("map { Optional.some($0) }").insertingBeforeMethod(
                "replaceEmpty(with: nil)")
            onNext = parseExpression(Self.maybeValueHandler(onSuccess: onSuccess, onCompleted: empty))
            onCompleted = nil
        }
        if let owner = handler("with") {
            // `subscribe(with: owner, onNext: { owner, value in })`: each handler holds the owner weakly and does
            // nothing once it is gone.
            guard let next = onNext.map({ weakOwner($0, owner, arity: 2) }) ?? .some(nil),
                let error = onError.map({ weakOwner($0, owner, arity: 2) }) ?? .some(nil),
                let completed = onCompleted.map({ weakOwner($0, owner, arity: 1) }) ?? .some(nil)
            else {
                spot(original, "subscribe(with:) with handlers that are not closure literals: hold the owner weakly")
                return nil
            }
            onNext = next
            onError = error
            onCompleted = completed
        }
        let completion = CompletionClosure(onError: onError, onCompleted: onCompleted)
        guard let completionText = completion.text else {
            spot(original, completion.conflict ?? "")
            return nil
        }
        let value = onNext ?? parseExpression("{ _ in }")
        if let onDisposed {
            let hook =
                isClosure(onDisposed)
                ? "handleTermination \(onDisposed.trimmedDescription)"
                : "handleTermination(\(onDisposed.trimmedDescription))"
            call = call.insertingBeforeMethod(hook)
        }
        let replacement: ExprSyntax
        if Self.isDiscarded(original) {
            let sinkText =
                "Subscribers.Sink(receiveCompletion: \(completionText), receiveValue: \(value.trimmedDescription))"
            replacement = ExprSyntax(
                call.droppingTrailingClosures().renamingMethod("subscribe").replacingArguments([
                    (nil, parseExpression(sinkText))
                ]))
        } else if failure == .never && onError == nil && onCompleted == nil {
            if driver && original.receiverIsProvablyDriverOrSignal(facts) && onNext != nil {
                let method = call.droppingTrailingClosures().renamingMethod(
                    original.methodName == "emit" ? "emit" : "drive")
                if let closure = value.as(ClosureExprSyntax.self) {
                    replacement = ExprSyntax(method.withOnlyTrailingClosure(closure))
                } else {
                    replacement = ExprSyntax(method.replacingArguments([(nil, value)]))
                }
            } else {
                replacement = ExprSyntax(
                    call.droppingTrailingClosures().renamingMethod("sink").replacingArguments([("receiveValue", value)])
                )
            }
        } else {
            replacement = ExprSyntax(
                call.droppingTrailingClosures().renamingMethod("sink").replacingArguments([
                    ("receiveCompletion", parseExpression(completionText)), ("receiveValue", value),
                ]))
        }
        record(original, replacement)
        return replacement
    }

    /// The value handler of a Maybe made a Single of an optional: `{ value in if let value { onSuccess's body } else
    /// { onCompleted's body } }`; a handler with captures or given by name is called (`(handler)(value)`).
    static func maybeValueHandler(onSuccess: ExprSyntax, onCompleted: ExprSyntax) -> String {
        var name = "value"
        var success = "(\(onSuccess.trimmedDescription))(value)"
        if let closure = onSuccess.as(ClosureExprSyntax.self), ClosureParts(closure).captures.isEmpty,
            !ClosureParts(closure).isMultiline
        {
            let parts = ClosureParts(closure)
            if let parameters = parts.parameters, parameters.count == 1, parameters[0] != "_" {
                name = parameters[0]
                success = parts.body.trimmedBlanks()
            } else if parts.parameters == nil, !mentions(closure.statements, "value") {
                success = ClosureParts.renamingAnonymousArgument(in: closure, to: name).trimmedBlanks()
            }
        }
        var empty = "(\(onCompleted.trimmedDescription))()"
        if let closure = onCompleted.as(ClosureExprSyntax.self), ClosureParts(closure).captures.isEmpty,
            !ClosureParts(closure).isMultiline, ClosureParts(closure).parameters == nil
        {
            empty = ClosureParts(closure).body.trimmedBlanks()
        }
        return "{ \(name) in if let \(name) = \(name) { \(success) } else { \(empty) } }"
    }

    /// `{ owner, value in body }` → `{ [weak owner] value in guard let owner = owner else { return } body }`:
    /// RxSwift's `subscribe(with:)` calls the handlers with the owner only while it lives.
    private func weakOwner(_ handler: ExprSyntax, _ owner: ExprSyntax, arity: Int) -> ExprSyntax? {
        guard let closure = handler.as(ClosureExprSyntax.self), let parameters = ClosureParts(closure).parameters,
            parameters.count == arity
        else { return nil }
        let ownerText = owner.trimmedDescription
        guard ownerText.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" }) else { return nil }
        let parts = ClosureParts(closure)
        let ownerName = parameters[0]
        let rest = parameters.dropFirst().joined(separator: ", ")
        let captures = (["weak \(ownerText)"] + parts.captures.filter { !$0.hasSuffix(" \(ownerText)") })
            .joined(separator: ", ")
        let guardLine =
            ownerName == "_"
            ? "guard \(ownerText) != nil else { return }"
            : "guard let \(ownerName) = \(ownerText) else { return }"
        let signature = rest.isEmpty ? "" : " \(rest)"
        let body: String
        if parts.isMultiline {
            body = "\n\(parts.bodyIndentation)\(guardLine)" + parts.body + parts.closingTrivia
        } else {
            body = " \(guardLine); \(parts.body.trimmedBlanks()) "
        }
        return parseExpression("{ [\(captures)]\(signature) in\(body)}")
    }

    // MARK: drive / emit

    private func drive(_ node: FunctionCallExprSyntax, _ original: FunctionCallExprSyntax) -> ExprSyntax? {
        let arguments = node.allArguments
        let labels = arguments.map(\.label)
        if arguments.isEmpty {
            let replacement = ExprSyntax(
                node.renamingMethod("sink").replacingArguments([("receiveValue", parseExpression("{ _ in }"))]))
            record(original, replacement)
            return replacement
        }
        let isTarget =
            labels == ["to"] || (labels == [""] && node.trailingClosure == nil && !isClosure(arguments[0].expression))
        if arguments.count > 1 && labels.first == "" && !isClosure(arguments[0].expression) {
            spot(
                original,
                "\(node.methodName ?? "drive") into a binder with a cell closure (RxCocoa's items): feed the "
                    + "table's data source from a sink")
            return nil
        }
        if isTarget {
            return bindTarget(node, original, target: arguments[0].expression, failure: .never, onMain: true)
        }
        return subscribe(node, original, failure: .never, driver: true)
    }

    // MARK: bind

    private func bind(_ node: FunctionCallExprSyntax, _ original: FunctionCallExprSyntax) -> ExprSyntax? {
        guard let receiver = original.receiver else { return nil }
        let arguments = node.allArguments
        let labels = arguments.map(\.label)
        let failure = facts.failure(of: receiver)
        if Self.isDiscarded(original) && !facts.isRx(receiver) {
            // `cell.bind(to: viewModel)`: an app's own method (RxSwift's bind returns a Disposable nobody drops).
            return nil
        }
        if labels == ["onNext"] || (labels == [""] && isClosure(arguments[0].expression)) {
            if Self.isDiscarded(original) {
                spot(original, "the binding's result is dropped: keep the AnyCancellable (a dropped one cancels)")
                return nil
            }
            var call = node.droppingTrailingClosures()
            if failure != .never { call = call.insertingBeforeMethod("assertNoFailure()") }
            let replacement = ExprSyntax(
                call.renamingMethod("sink").replacingArguments([("receiveValue", arguments[0].expression)]))
            record(original, replacement)
            return replacement
        }
        guard labels.first == "to" else { return nil }
        guard labels.count == 1 else {
            spot(original, "bind(to:) with several targets: subscribe each target (or share the source)")
            return nil
        }
        return bindTarget(node, original, target: arguments[0].expression, failure: failure, onMain: false)
    }

    /// `source.bind(to: target)` / `driver.drive(target)`: a relay, a subject, or an RxCocoa binder.
    private func bindTarget(
        _ node: FunctionCallExprSyntax, _ original: FunctionCallExprSyntax, target: ExprSyntax,
        failure: FailureKind, onMain: Bool
    ) -> ExprSyntax? {
        if Self.isDiscarded(original) {
            spot(original, "the binding's result is dropped: keep the AnyCancellable (a dropped one cancels)")
            return nil
        }
        let targetOriginal = original.allArguments.first?.expression ?? target
        var call = node.droppingTrailingClosures()
        let replacement: ExprSyntax
        if let member = target.as(MemberAccessExprSyntax.self), let rx = member.base?.as(MemberAccessExprSyntax.self),
            rx.declName.baseName.text == "rx"
        {
            // An RxCocoa binder on a property: `label.rx.text`.
            let object = rx.base?.trimmedDescription ?? "self"
            let property = member.declName.baseName.text
            if failure != .never { call = call.insertingBeforeMethod("assertNoFailure()") }
            if !onMain { call = call.insertingBeforeMethod("receive(on: MainThreadScheduler.shared)") }
            replacement = ExprSyntax(
                call.renamingMethod("assign").replacingArguments([
                    ("to", parseExpression("\\.\(property)")), ("on", parseExpression(object)),
                    ("ownership", parseExpression(".weak")),
                ]))
        } else if target.trimmedDescription.contains(".rx.") || target.trimmedDescription.hasPrefix("rx.") {
            spot(
                original, "an RxCocoa binder (\(target.trimmedDescription)): assign on the main thread or use a closure"
            )
            return nil
        } else {
            let kind = facts.kind(of: targetOriginal)
            if kind?.isRelay == true || kind == nil {
                if failure != .never && kind != nil { call = call.insertingBeforeMethod("assertNoFailure()") }
            } else if kind?.isSubject == true, failure == .never {
                call = call.insertingBeforeMethod("setFailureType(to: Error.self)")
            }
            replacement = ExprSyntax(call.renamingMethod("subscribe").replacingArguments([(nil, target)]))
        }
        record(original, replacement)
        return replacement
    }

    /// Whether the call's result is dropped: a statement of its own (not the only one of a closure, which returns
    /// it) or `_ = call`.
    static func isDiscarded(_ call: FunctionCallExprSyntax) -> Bool {
        guard let parent = call.parent else { return false }
        if let item = parent.as(CodeBlockItemSyntax.self) {
            // The single expression of a closure, or of a function or getter that returns something, is returned.
            if let list = item.parent?.as(CodeBlockItemListSyntax.self), list.count == 1 {
                if list.parent?.is(ClosureExprSyntax.self) == true || list.parent?.is(AccessorBlockSyntax.self) == true
                {
                    return false
                }
                if let block = list.parent?.as(CodeBlockSyntax.self) {
                    if let function = block.parent?.as(FunctionDeclSyntax.self),
                        let result = function.signature.returnClause?.type.trimmedDescription,
                        result != "Void" && result != "()"
                    {
                        return false
                    }
                    if block.parent?.as(AccessorDeclSyntax.self)?.accessorSpecifier.text == "get" { return false }
                }
            }
            return true
        }
        if let initializer = parent.as(InitializerClauseSyntax.self),
            initializer.parent?.as(PatternBindingSyntax.self)?.pattern.is(WildcardPatternSyntax.self) == true
        {
            return true  // `let _ = call`
        }
        if let list = parent.as(ExprListSyntax.self), list.count == 3,
            list.first?.is(DiscardAssignmentExprSyntax.self) == true, list.last?.id == call.id
        {
            return true
        }
        return false
    }
}

extension FunctionCallExprSyntax {
    /// `a.b(x)` → `a.inserted.b(x)`: an operator put in front of the method, on the receiver's line layout.
    func insertingBeforeMethod(_ inserted: String) -> FunctionCallExprSyntax {
        guard let member = calledExpression.as(MemberAccessExprSyntax.self), let base = member.base else { return self }
        // In a chain written one operator per line, the inserted operator gets a line of its own.
        let separator =
            member.period.leadingTrivia.contains(where: \.isNewline) ? member.period.leadingTrivia.description : ""
        let newBase = parseExpression(base.description + separator + "." + inserted)
        return with(\.calledExpression, ExprSyntax(member.with(\.base, newBase)))
    }

    /// Whether the receiver is a Driver or Signal by its declaration or its last call (`asDriver(...)`).
    func receiverIsProvablyDriverOrSignal(_ facts: MigrationFacts) -> Bool {
        guard let receiver else { return false }
        let kind = facts.kind(of: receiver)
        return kind == .driver || kind == .signal
    }
}
