// Creating observables: `Observable.just(x)` → `Just(x)`, `of(a, b)` → `[a, b].publisher`, `from(xs)` →
// `xs.publisher`, `empty()` → `Empty()`, `never()` → `Empty(completeImmediately: false)`, `error(e)` →
// `Fail(error: e)`, `deferred { }` → `Deferred { }`, `range(start:count:)` → a range's publisher,
// `create { observer in ... }` → `AnyPublisher<T, Error>.create { ... }` (run per subscriber, its returned cancellable
// run at completion, error and cancel, as RxSwift's Disposable is), `interval(p, scheduler:)` →
// `Publishers.Interval(p, scheduler:)` (counting from 0 on each subscription, as RxSwift's does; `Timer.publish`
// would be shared and never start without `autoconnect()`), `timer(d, scheduler:)` → `Just(0).delay(for:scheduler:)`;
// the combiners `combineLatest`, `zip`, `merge`, `concat` of several sources (with their failures made to agree), and
// `combineLatest`/`zip`/`merge`/`concat` of an array of sources (UntangleExtras' `combineLatest()`/`zip()` on a
// collection, `Publishers.MergeMany`, one inner publisher at a time for `concat`). `zip` (of 2 to 4 sources, or of an
// array) becomes UntangleExtras' `zip(..., finishing: .whenEveryPublisherFinishes)`: RxSwift's finishes once every
// source completed, Combine's as soon as a finished source has nothing left to pair.
// The same spellings on Driver and Signal end in `asDriver()`/`asSignal()`. The implicit forms (`.just(x)` where
// the type is known from the context) follow the context: on a Driver they stay (`Driver.just` exists).

import SwiftSyntax

final class CreationRules: MigrationRule {
    override class var id: String { "creation" }

    override func rewrite(_ node: FunctionCallExprSyntax, original: FunctionCallExprSyntax) -> ExprSyntax? {
        guard let member = original.calledExpression.as(MemberAccessExprSyntax.self) else { return nil }
        let name = member.declName.baseName.text
        var base = original.staticRxBase
        var element: String?
        if member.base?.is(GenericSpecializationExprSyntax.self) == true {
            // From the rewritten node: a type argument may itself name RxSwift types.
            element = node.rewrittenStaticElement
        }
        if member.base == nil {
            // `.just(x)`: an Observable unless the context declares a Driver, Signal or trait.
            guard implicitContext(original) == .observable else { return nil }
            base = "Observable"
        }
        guard let base else { return nil }
        switch base {
        case "Observable", "Infallible":
            return observable(node, original, name: name, element: element)
        case "Driver", "Signal":
            return shared(node, original, name: name, conversion: base == "Driver" ? "asDriver()" : "asSignal()")
        default:
            return nil
        }
    }

    /// What the context of an implicit member (`.just(x)`) declares: a declared place, a Driver conversion's
    /// argument, or the result of a closure given to an operator that takes observables. Anything else (`.error(e)`
    /// in `observer.on(.error(e))`, in a trait's promise) is not an observable.
    private func implicitContext(_ original: FunctionCallExprSyntax) -> RxKind? {
        if let slot = Slots.kind(of: original, facts: facts) { return slot }
        guard let parent = original.parent else { return nil }
        var closure: ClosureExprSyntax?
        if parent.is(ReturnStmtSyntax.self) {
            for ancestor in parent.ancestors {
                if let found = ancestor.as(ClosureExprSyntax.self) {
                    closure = found
                    break
                }
                if ancestor.is(FunctionDeclSyntax.self) || ancestor.is(AccessorDeclSyntax.self) { return nil }
            }
        } else if let item = parent.as(CodeBlockItemSyntax.self),
            let list = item.parent?.as(CodeBlockItemListSyntax.self),
            list.count == 1
        {
            closure = list.parent?.as(ClosureExprSyntax.self)
        } else if parent.is(LabeledExprSyntax.self), let call = parent.parent?.parent?.as(FunctionCallExprSyntax.self),
            let name = call.calledName
        {
            if name == "asDriver" { return .driver }
            if name == "asSignal" { return .signal }
            return Self.observableArgumentOperators.contains(name) ? .observable : nil
        }
        guard let call = closure?.enclosingCall, let name = call.calledName else { return nil }
        if name == "asDriver" { return .driver }
        if name == "asSignal" { return .signal }
        return Self.observableClosureOperators.contains(name) ? .observable : nil
    }

    /// Operators whose closure returns an observable.
    static let observableClosureOperators: Set<String> = [
        "flatMap", "flatMapLatest", "flatMapFirst", "concatMap", "catch", "catchError", "deferred", "retryWhen",
        "retry", "switchMap", "flatMapWithIndex",
    ]

    /// Operators that take an observable argument.
    static let observableArgumentOperators: Set<String> = [
        "concat", "merge", "amb", "withLatestFrom", "sample", "takeUntil", "skipUntil", "zip", "combineLatest",
        "take", "skip",
    ]

    private func observable(
        _ node: FunctionCallExprSyntax, _ original: FunctionCallExprSyntax, name: String, element: String?
    ) -> ExprSyntax? {
        let arguments = node.allArguments
        let labels = arguments.map(\.label)
        let texts = arguments.map { $0.expression.trimmedDescription }
        let typed = element.map { "<\($0), Error>" } ?? ""
        var text: String?
        switch name {
        case "just" where labels == [""]: text = "Just(\(texts[0]))"
        case "of" where !labels.contains(where: { !$0.isEmpty }):
            text = "[\(texts.joined(separator: ", "))].publisher"
        case "from" where labels == [""]: text = Self.postfix(arguments[0].expression) + ".publisher"
        case "from" where labels == ["optional"]: text = Self.postfix(arguments[0].expression) + ".publisher"
        case "empty" where labels.isEmpty: text = "Empty\(typed)()"
        case "never" where labels.isEmpty: text = "Empty\(typed)(completeImmediately: false)"
        case "error" where labels == [""]: text = "Fail\(typed)(error: \(texts[0]))"
        case "deferred" where labels == [""]:
            if let closure = arguments[0].expression.as(ClosureExprSyntax.self), closure.throwsOutsideNestedClosures {
                spot(original, "deferred's closure throws: Deferred's cannot; return Fail(error:) instead of throwing")
                return nil
            }
            text = "Deferred " + texts[0]
        case "range" where labels == ["start", "count"]:
            let start = Self.operand(arguments[0].expression)
            text = "(\(start)..<\(start) + \(Self.operand(arguments[1].expression))).publisher"
        case "create" where labels == [""]:
            text = "AnyPublisher\(element.map { "<\($0), Error>" } ?? "").create " + texts[0]
        case "interval" where labels == ["", "scheduler"]:
            text = "Publishers.Interval(\(texts[0]), scheduler: \(texts[1]))"
        case "timer" where labels == ["", "scheduler"]:
            text = "Just(0).delay(for: \(texts[0]), scheduler: \(texts[1]))"
        case "timer" where labels == ["", "period", "scheduler"]:
            text = "Publishers.Interval(\(texts[1]), delay: \(texts[0]), scheduler: \(texts[2]))"
        case "combineLatest", "zip", "merge", "concat":
            text = combine(node, original, name: name)
            if text == nil { return nil }
        case "just", "of", "from":
            spot(original, "Observable.\(name) with a scheduler: add receive(on:) or subscribe(on:) after it")
            return nil
        default:
            if original.staticRxBase == "Observable" {
                spot(
                    original,
                    "Observable.\(name) has no direct counterpart (or is a library's): compose it from "
                        + "Combine's operators")
            }
            return nil
        }
        guard let text else { return nil }
        return replace(node, of: original, with: text)
    }

    /// `Driver.combineLatest(a, b)` → `Publishers.CombineLatest(a, b).asDriver()`; `Driver.just` and
    /// `Driver.empty` stay (UntangleExtras has them).
    private func shared(
        _ node: FunctionCallExprSyntax, _ original: FunctionCallExprSyntax, name: String, conversion: String
    ) -> ExprSyntax? {
        let texts = node.allArguments.map { $0.expression.trimmedDescription }
        var text: String?
        switch name {
        case "combineLatest", "zip", "merge", "concat": text = combine(node, original, name: name, harmonize: false)
        case "never": text = "Empty(completeImmediately: false)"
        case "of": text = "[\(texts.joined(separator: ", "))].publisher"
        case "from" where texts.count == 1: text = Self.postfix(node.allArguments[0].expression) + ".publisher"
        default: return nil
        }
        guard let text else { return nil }
        return replace(node, of: original, with: text + "." + conversion)
    }

    /// The combiners of several sources; nil (with a spot) for an array of sources or too many.
    private func combine(
        _ node: FunctionCallExprSyntax, _ original: FunctionCallExprSyntax, name: String, harmonize: Bool = true
    ) -> String? {
        let arguments = node.allArguments
        let originals = original.allArguments
        var sources: [(text: String, failure: FailureKind)] = []
        var selector: ExprSyntax?
        for (index, argument) in arguments.enumerated() {
            if argument.label == "resultSelector" || (argument.label.isEmpty && isClosure(argument.expression)) {
                selector = argument.expression
            } else if argument.label.isEmpty {
                sources.append((Self.postfix(argument.expression), facts.failure(of: originals[index].expression)))
            } else {
                return nil
            }
        }
        if sources.count == 1 {
            // An array (or any collection) of sources.
            var text: String
            switch name {
            case "merge": text = "Publishers.MergeMany(\(sources[0].text))"
            case "combineLatest": text = "\(sources[0].text).combineLatest()"
            // RxSwift's zip finishes once every source completed (Zip.swift, Zip+Collection.swift); Combine's as soon
            // as a finished source has nothing left: UntangleExtras' zips with `finishing:` keep RxSwift's rule.
            case "zip": text = "\(sources[0].text).zip(finishing: .whenEveryPublisherFinishes)"
            default: text = "\(sources[0].text).publisher.flatMap(maxPublishers: .max(1)) { $0 }"  // concat
            }
            if let selector {
                // RxSwift's array forms give the selector the array of values.
                text +=
                    selector.is(ClosureExprSyntax.self)
                    ? ".map \(selector.trimmedDescription)" : ".map(\(selector.trimmedDescription))"
            }
            return text
        }
        // Combine's combiners need one failure type: a source that cannot fail joins one that can (a source the
        // migration does not know is taken for an Observable, which can).
        if harmonize && sources.contains(where: { $0.failure != .never }) {
            for index in sources.indices where sources[index].failure == .never {
                sources[index].text += ".setFailureType(to: Error.self)"
            }
        }
        let combiner: String
        var zipped: String?
        switch (name, sources.count) {
        case ("combineLatest", 2): combiner = "Publishers.CombineLatest"
        case ("combineLatest", 3...4): combiner = "Publishers.CombineLatest\(sources.count)"
        case ("zip", 2...4):
            let others = sources.dropFirst().map(\.text).joined(separator: ", ")
            combiner = ""
            zipped = "\(sources[0].text).zip(\(others), finishing: .whenEveryPublisherFinishes)"
        case ("merge", 2): combiner = "Publishers.Merge"
        case ("merge", 3...8): combiner = "Publishers.Merge\(sources.count)"
        case ("concat", _):
            combiner = ""
        default:
            spot(original, "\(name) of \(sources.count) sources: nest the combiners (Combine's stop at 4, merge at 8)")
            return nil
        }
        var text: String
        if let zipped {
            text = zipped
        } else if combiner.isEmpty {
            text = sources.dropFirst().reduce(sources[0].text) { "\($0).append(\($1.text))" }
        } else {
            // The sources keep the layout they had (one per line stays one per line); only the call's name and the
            // selector move.
            let slots = Array(node.arguments).filter {
                !($0.label?.text == "resultSelector" || ($0.label == nil && isClosure($0.expression)))
            }
            let call = node.with(\.calledExpression, parseExpression(combiner))
                .replacingArguments(sources.map { (nil, parseExpression($0.text)) }, slots: slots)
                .droppingTrailingClosures()
            text = call.with(\.leadingTrivia, Trivia()).with(\.trailingTrivia, Trivia()).description
        }
        if let selector {
            // A closure of n parameters (or using $0...$n-1) takes the combined tuple as is.
            if let closure = selector.as(ClosureExprSyntax.self) {
                text += ".map \(closure.trimmedDescription)"
            } else {
                let elements = (0..<sources.count).map { "$0.\($0)" }.joined(separator: ", ")
                text += ".map { \(selector.trimmedDescription)(\(elements)) }"
            }
        }
        return text
    }

    /// `expression` ready to take a postfix member (`xs` stays, `a ?? b` is parenthesized).
    static func postfix(_ expression: ExprSyntax) -> String {
        let text = expression.trimmedDescription
        let simple =
            expression.is(DeclReferenceExprSyntax.self) || expression.is(MemberAccessExprSyntax.self)
            || expression.is(FunctionCallExprSyntax.self) || expression.is(ArrayExprSyntax.self)
            || expression.is(DictionaryExprSyntax.self) || expression.is(TupleExprSyntax.self)
            || expression.is(SubscriptCallExprSyntax.self) || expression.is(ForceUnwrapExprSyntax.self)
        return simple ? text : "(\(text))"
    }

    /// `expression` as an operand of `+` and `..<`.
    static func operand(_ expression: ExprSyntax) -> String {
        expression.is(IntegerLiteralExprSyntax.self) ? expression.trimmedDescription : postfix(expression)
    }
}
