// Operators: Combine's own where the meaning matches (`distinctUntilChanged` → `removeDuplicates`, `startWith` →
// `prepend`, `catchAndReturn` → `replaceError(with:)`, `take`/`skip` → `prefix`/`dropFirst`, the time operators'
// labels, `toArray` → `collect`, `switchLatest` → `switchToLatest`, `debug` → `print`, a throwing `map` →
// `tryMap`...), UntangleExtras' where Combine has none (`flatMapLatest`, `flatMapFirst`, `withLatestFrom`,
// `share(replay:)`, `retry(when:)`, `materialize`, `amb`, `sample`, `enumerated`, `element(at:)` keep their names;
// `debounce` gets `onFinish: .deliverPendingValue` (RxSwift's delivers the value waiting at completion); `publish()` and
// `replay(n)` are `multicast` with a PassthroughSubject or ReplaySubject made when first needed, `refCount()` is
// `autoconnect()`, `ignoreElements()` is `ignoreOutput()`), and counted operators by meaning:
// RxSwift's `retry(n)` counts the first attempt, Combine's counts retries, so `retry(3)` is `retry(2)`; RxSwift's
// `share()` reconnects after completion like `share(replay: 0)` (Combine's `share()` stays completed).

import SwiftSyntax

final class OperatorRules: MigrationRule {
    override class var id: String { "operators" }

    override func rewrite(_ node: FunctionCallExprSyntax, original: FunctionCallExprSyntax) -> ExprSyntax? {
        guard let name = node.methodName, original.receiver != nil else { return nil }
        let arguments = node.allArguments
        let labels = arguments.map(\.label)
        let first = arguments.first?.expression
        var replacement: FunctionCallExprSyntax?
        func renamed(_ newName: String, _ items: [(label: String?, expression: ExprSyntax)]? = nil) {
            var call = node.renamingMethod(newName)
            if let items {
                call = call.droppingTrailingClosures().replacingArguments(items)
            }
            replacement = call
        }
        switch (name, labels) {
        case ("asObservable", []): renamed("eraseToAnyPublisher")
        case ("distinctUntilChanged", []): renamed("removeDuplicates")
        case ("distinctUntilChanged", _) where arguments.count == 1:
            guard let comparer = comparer(arguments[0].expression) else {
                spot(original, "distinctUntilChanged with a key: removeDuplicates { key($0) == key($1) }")
                return nil
            }
            renamed("removeDuplicates", [("by", comparer)])
        case ("startWith", _) where !labels.contains(where: { !$0.isEmpty }): renamed("prepend")
        case ("catchAndReturn", [""]), ("catchErrorJustReturn", [""]): renamed("replaceError", [("with", first!)])
        case ("catchError", [""]): renamed("catch")
        case ("take", [""]) where !isClosure(first!): renamed("prefix")
        case ("take", ["while"]), ("takeWhile", [""]): renamed("prefix", [("while", first!)])
        case ("take", ["until"]),
            ("takeUntil", [""]) where !isClosure(first!):
            renamed("prefix", [("untilOutputFrom", first!)])
        case ("take", ["", "scheduler"]): renamed("prefix", [("for", first!), ("scheduler", arguments[1].expression)])
        case ("skip", [""]) where !isClosure(first!): renamed("dropFirst")
        case ("skip", ["while"]), ("skipWhile", [""]): renamed("drop", [("while", first!)])
        case ("skip", ["until"]),
            ("skipUntil", [""]) where !isClosure(first!):
            renamed("drop", [("untilOutputFrom", first!)])
        case ("debounce", ["", "scheduler"]):
            // RxSwift's debounce delivers the value still waiting when the source completes, then the completion
            // (Debounce.swift, `.completed`); Combine's drops it. UntangleExtras' overload keeps RxSwift's rule.
            renamed(
                "debounce",
                [
                    ("for", first!), ("scheduler", arguments[1].expression),
                    ("onFinish", parseExpression(".deliverPendingValue")),
                ])
        case ("delay", ["", "scheduler"]), ("delaySubscription", ["", "scheduler"]):
            renamed(name, [("for", first!), ("scheduler", arguments[1].expression)])
        case ("throttle", ["", "scheduler"]):
            renamed(
                "throttle",
                [("for", first!), ("scheduler", arguments[1].expression), ("latest", parseExpression("true"))])
        case ("throttle", ["", "latest", "scheduler"]):
            renamed(
                "throttle",
                [("for", first!), ("scheduler", arguments[2].expression), ("latest", arguments[1].expression)])
        case ("timeout", ["", "other", "scheduler"]):
            renamed(
                "timeout",
                [(nil, first!), ("scheduler", arguments[2].expression), ("fallback", arguments[1].expression)])
        case ("timeout", ["", "scheduler"]):
            spot(
                original,
                "timeout: RxSwift fails with RxError.timeout, Combine's timeout finishes silently: pass customError:")
            return nil
        case ("elementAt", [""]):
            // UntangleExtras' element(at:), RxSwift's: not `output(at:)`, which on a sequence's publisher
            // (`Observable.range`, `from(slice)`) takes a collection index (`(1..<7).publisher.output(at: 2)` is 2)
            // and finishes quietly where RxSwift fails with `argumentOutOfRange`. `element(at:)` keeps its name.
            renamed("element", [("at", first!)])
        case ("toArray", []): renamed("collect")
        case ("ignoreElements", []) where facts.isRx(original.receiver!): renamed("ignoreOutput")
        case ("publish", []) where facts.isRx(original.receiver!):
            // RxSwift's publish() is multicast { PublishSubject() }: the subject is made when first needed.
            replacement = node.renamingMethod("multicast").withOnlyTrailingClosure(
                parseExpression("{ PassthroughSubject() }").as(ClosureExprSyntax.self)!)
        case ("replay", [""]) where facts.isRx(original.receiver!):
            replacement = node.renamingMethod("multicast").withOnlyTrailingClosure(
                parseExpression("{ ReplaySubject(bufferSize: \(first!.trimmedDescription)) }").as(
                    ClosureExprSyntax.self)!)
        case ("replayAll", []) where facts.isRx(original.receiver!):
            replacement = node.renamingMethod("multicast").withOnlyTrailingClosure(
                parseExpression("{ ReplaySubject.unbounded() }").as(ClosureExprSyntax.self)!)
        case ("refCount", []) where facts.isRx(original.receiver!):
            // Autoconnect connects for the first subscriber and disconnects when the last one cancels, as refCount().
            renamed("autoconnect")
        case ("takeLast", [""]):
            if first!.trimmedDescription == "1" {
                renamed("last", [])
            } else {
                replacement = node.renamingMethod("collect").replacingArguments([])
                    .insertingAfter("flatMap { $0.suffix(\(first!.trimmedDescription)).publisher }")
            }
        case ("switchLatest", []): renamed("switchToLatest")
        case ("merge", []): renamed("flatMap", [(nil, parseExpression("{ $0 }"))])
        case ("merge", ["maxConcurrent"]):
            renamed(
                "flatMap",
                [
                    ("maxPublishers", parseExpression(".max(\(first!.trimmedDescription))")),
                    (nil, parseExpression("{ $0 }")),
                ])
        case ("concat", []):
            renamed("flatMap", [("maxPublishers", parseExpression(".max(1)")), (nil, parseExpression("{ $0 }"))])
        case ("concat", [""]): renamed("append")
        case ("debug", _): renamed("print", first.map { [(nil, $0)] } ?? [])
        case ("scan", ["", "accumulator"]), ("reduce", ["", "accumulator"]):
            renamed(name, [(nil, first!), (nil, arguments[1].expression)])
        case ("scan", ["into", "accumulator"]), ("scan", ["into", ""]):
            spot(original, "scan(into:): Combine's scan returns the new state: { var state = $0; ...; return state }")
            return nil
        case ("share", []): renamed("share", [("replay", parseExpression("0"))])
        case ("share", ["replay", "scope"]):
            let scope = arguments[1].expression.trimmedDescription
            if scope == ".whileConnected" {
                renamed("share", [("replay", first!)])
            } else if scope == ".forever" {
                replacement = node.renamingMethod("multicast").replacingArguments([
                    ("subject", parseExpression("ReplaySubject(bufferSize: \(first!.trimmedDescription))"))
                ]).insertingAfter("autoconnect()")
            } else {
                return nil
            }
        case ("share", ["scope"]):
            guard arguments[0].expression.trimmedDescription == ".whileConnected" else {
                spot(original, "share(scope: .forever): multicast(subject: PassthroughSubject()).autoconnect()")
                return nil
            }
            renamed("share", [("replay", parseExpression("0"))])
        case ("retry", []): renamed("retry", [(nil, parseExpression(".max"))])
        case ("retry", [""]):
            let count = first!.trimmedDescription
            let retries = Int(count).map { String(max(0, $0 - 1)) } ?? "\(CreationRules.operand(first!)) - 1"
            renamed("retry", [(nil, parseExpression(retries))])
        case ("retryWhen", [""]), ("retry", ["when"]):
            guard !isClosure(first!) else {
                if name == "retry" { return nil }
                renamed("retry", [("when", first!)])
                break
            }
            // A handler given by name was declared taking `Observable<Error>` (now `AnyPublisher<Error, Error>`);
            // UntangleExtras' error stream cannot fail (`AnyPublisher<Failure, Never>`).
            let handler = first!.trimmedDescription
            renamed(
                "retry",
                [("when", parseExpression("{ \(handler)($0.setFailureType(to: Error.self).eraseToAnyPublisher()) }"))])
        case ("map", [""]), ("filter", [""]), ("compactMap", [""]):
            // Only on an RxSwift chain: an array's throwing `map` stays an array's.
            guard
                original.allArguments.first?.expression.as(ClosureExprSyntax.self)?.throwsOutsideNestedClosures == true,
                let receiver = original.receiver, facts.isRx(receiver)
            else { return nil }
            renamed("try" + name.prefix(1).uppercased() + name.dropFirst())
        case ("mapAt", [""]): renamed("map")
        case ("groupBy", ["keySelector"]): renamed("groupBy", [(nil, first!)])
        case ("do", _): return handleEvents(node, original)
        case ("sample", ["", "defaultValue"]):
            spot(original, "sample(_:defaultValue:): sample(_:) sends nothing for a tick without a new value")
            return nil
        case ("first", []) where node.trailingClosure == nil && facts.isRx(original.receiver!):
            spot(original, "RxSwift's first() is a Single of an optional (nil when empty); Combine's sends nothing")
            return nil
        case ("single", []), ("window", _), ("buffer", _), ("asObserver", []):
            // Sequences have `single()`-like names too: only an RxSwift chain is marked.
            guard facts.isRx(original.receiver!) else { return nil }
            spot(original, "\(name)(): no direct counterpart; rewrite it with Combine's operators")
            return nil
        default:
            return nil
        }
        guard let replacement else { return nil }
        record(original, replacement)
        return ExprSyntax(replacement)
    }

    /// `distinctUntilChanged`'s argument as `removeDuplicates(by:)`'s: a two-argument comparer stays; a key path or
    /// a one-argument key closure compares keys.
    private func comparer(_ argument: ExprSyntax) -> ExprSyntax? {
        if argument.is(KeyPathExprSyntax.self) {
            let path = argument.trimmedDescription
            return parseExpression("{ $0[keyPath: \(path)] == $1[keyPath: \(path)] }")
        }
        guard let closure = argument.as(ClosureExprSyntax.self) else { return nil }
        let parameters = ClosureParts(closure).parameters
        let usesSecond = closure.statements.tokens(viewMode: .sourceAccurate).contains {
            $0.tokenKind == .dollarIdentifier("$1")
        }
        if parameters?.count == 2 || usesSecond { return argument }
        if parameters == nil, closure.statements.count == 1, closure.signature == nil {
            // `{ $0.id }` → `{ $0.id == $1.id }`.
            let key = closure.statements.trimmedDescription
            let other = ClosureParts.renamingAnonymousArgument(in: closure, to: "$1").trimmedBlanks()
            return parseExpression("{ \(key) == \(other) }")
        }
        return parseExpression("{ (\(closure.trimmedDescription))($0) == (\(closure.trimmedDescription))($1) }")
    }

    /// `do(onNext:onError:onCompleted:onSubscribe:onDispose:)` → `handleEvents(...)` (+ `handleTermination` for
    /// `onDispose`, which RxSwift runs after completion, error or dispose).
    private func handleEvents(_ node: FunctionCallExprSyntax, _ original: FunctionCallExprSyntax) -> ExprSyntax? {
        let arguments = node.allArguments
        func handler(_ label: String) -> ExprSyntax? { arguments.first { $0.label == label }?.expression }
        let known: Set<String> = ["onNext", "onError", "onCompleted", "onSubscribe", "onSubscribed", "onDispose"]
        guard arguments.allSatisfy({ known.contains($0.label) }) else {
            spot(original, "do(afterNext:/afterError:/afterCompleted:): handleEvents runs before delivery, not after")
            return nil
        }
        if handler("onSubscribe") != nil && handler("onSubscribed") != nil {
            spot(original, "do(onSubscribe:onSubscribed:): handleEvents has one receiveSubscription")
            return nil
        }
        var items: [(label: String?, expression: ExprSyntax)] = []
        if let subscribe = handler("onSubscribe") ?? handler("onSubscribed") {
            items.append(("receiveSubscription", Self.ignoringArgument(subscribe)))
        }
        if let next = handler("onNext") { items.append(("receiveOutput", next)) }
        if handler("onError") != nil || handler("onCompleted") != nil {
            let completion = CompletionClosure(onError: handler("onError"), onCompleted: handler("onCompleted"))
            guard let text = completion.text else {
                spot(original, completion.conflict ?? "")
                return nil
            }
            items.append(("receiveCompletion", parseExpression(text)))
        }
        var call = node.droppingTrailingClosures()
        if items.isEmpty, let dispose = handler("onDispose") {
            call = call.renamingMethod("handleTermination")
            if let closure = dispose.as(ClosureExprSyntax.self) {
                call = call.withOnlyTrailingClosure(closure)
            } else {
                call = call.replacingArguments([(nil, dispose)])
            }
        } else {
            call = call.renamingMethod("handleEvents").replacingArguments(items)
            if let dispose = handler("onDispose") {
                let hook = isClosure(dispose) ? " \(dispose.trimmedDescription)" : "(\(dispose.trimmedDescription))"
                call = call.insertingAfter("handleTermination" + hook)
            }
        }
        record(original, call)
        return ExprSyntax(call)
    }

    /// `{ body }` → `{ _ in body }`; `f` → `{ _ in f() }`.
    static func ignoringArgument(_ handler: ExprSyntax) -> ExprSyntax {
        guard let closure = handler.as(ClosureExprSyntax.self) else {
            return parseExpression("{ _ in \(handler.trimmedDescription)() }")
        }
        let parts = ClosureParts(closure)
        let captures = parts.captures.isEmpty ? "" : "[\(parts.captures.joined(separator: ", "))] "
        guard parts.isMultiline else {
            return parseExpression("{ \(captures)_ in \(parts.body.trimmedBlanks()) }")
        }
        return parseExpression("{ \(captures)_ in" + parts.body + parts.closingTrivia + "}")
    }
}

extension FunctionCallExprSyntax {
    /// `a.b(x)` → `a.b(x).inserted`, on the chain's line layout (a new line when the chain has one per operator).
    func insertingAfter(_ inserted: String) -> FunctionCallExprSyntax {
        let separator = SlotRules.chainSeparator(of: ExprSyntax(self))
        let text = with(\.leadingTrivia, []).with(\.trailingTrivia, []).description + separator + "." + inserted
        let call = parseExpression(text).withTrivia(of: self)
        return call.as(FunctionCallExprSyntax.self) ?? self
    }
}
