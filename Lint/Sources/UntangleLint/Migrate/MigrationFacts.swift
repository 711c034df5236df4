// What the migration knows about names before it rewrites anything: which declared names (properties, locals,
// parameters, functions) hold a relay, a subject, a Driver, an Observable... Gathered from the declarations of every
// file of the run (so a view model's relay declared in one file is known where another file binds to it), by syntax
// alone. A name declared with two different kinds is dropped: the rules then fall back to what needs no knowledge.

import SwiftSyntax

/// What an RxSwift-typed declaration holds, as far as its declared type or its initializer says.
package enum RxKind: String, Sendable, CaseIterable {
    case observable, publishSubject, behaviorSubject, replaySubject, asyncSubject
    case publishRelay, behaviorRelay, replayRelay
    case driver, signal, single, maybe, completable, infallible
    case disposeBag, disposable, compositeDisposable, serialDisposable, singleAssignmentDisposable
    case observer, scheduler

    /// The kind an RxSwift type name denotes (`PublishRelay` in `PublishRelay<Int>`).
    init?(typeName: String) {
        switch typeName {
        case "Observable": self = .observable
        case "PublishSubject": self = .publishSubject
        case "BehaviorSubject": self = .behaviorSubject
        case "ReplaySubject": self = .replaySubject
        case "AsyncSubject": self = .asyncSubject
        case "PublishRelay": self = .publishRelay
        case "BehaviorRelay": self = .behaviorRelay
        case "ReplayRelay": self = .replayRelay
        case "Driver": self = .driver
        case "Signal": self = .signal
        case "Single": self = .single
        case "Maybe": self = .maybe
        case "Completable": self = .completable
        case "Infallible": self = .infallible
        case "DisposeBag": self = .disposeBag
        case "Disposable", "Cancelable": self = .disposable
        case "CompositeDisposable": self = .compositeDisposable
        case "SerialDisposable": self = .serialDisposable
        case "SingleAssignmentDisposable": self = .singleAssignmentDisposable
        case "AnyObserver": self = .observer
        case "MainScheduler", "SchedulerType", "ImmediateSchedulerType", "SerialDispatchQueueScheduler",
            "ConcurrentDispatchQueueScheduler", "ConcurrentMainScheduler", "CurrentThreadScheduler",
            "OperationQueueScheduler":
            self = .scheduler
        default: return nil
        }
    }

    /// Whether a publisher of this kind can fail once migrated: relays, drivers, signals and `Infallible` cannot.
    var failure: FailureKind {
        switch self {
        case .publishRelay, .behaviorRelay, .replayRelay, .driver, .signal, .infallible: return .never
        case .observable, .publishSubject, .behaviorSubject, .replaySubject, .asyncSubject, .single, .maybe,
            .completable:
            return .error
        default: return .unknown
        }
    }

    /// Whether this kind is a relay (it takes `accept`, never fails).
    var isRelay: Bool { self == .publishRelay || self == .behaviorRelay || self == .replayRelay }

    /// Whether this kind is a subject (`Failure == Error` once migrated).
    var isSubject: Bool {
        self == .publishSubject || self == .behaviorSubject || self == .replaySubject || self == .asyncSubject
    }
}

/// Whether an expression's publisher can fail once migrated.
package enum FailureKind: Sendable, Equatable {
    /// It cannot (`Failure == Never`): a relay, a Driver, `Just`...
    case never
    /// It can (`Failure == Error`): an Observable, a subject, a trait.
    case error
    /// The migration cannot tell; the rules treat it as an Observable's (`Error`) wherever that is safe.
    case unknown
}

/// The kinds of the names declared in the files of a run.
package struct MigrationFacts: Sendable {
    /// Variables, properties and parameters: name → kind.
    package private(set) var names: [String: RxKind] = [:]
    /// Names declared without a type whose initializer's failure is known: `let xs = Observable.of(1, 2)` becomes
    /// `[1, 2].publisher`, which cannot fail although RxSwift typed it Observable.
    package private(set) var inferredFailures: [String: FailureKind] = [:]
    /// Functions and methods: name → the kind they return.
    package private(set) var functions: [String: RxKind] = [:]
    private var conflicting: Set<String> = []
    private var conflictingFunctions: Set<String> = []

    package init() {}

    /// The facts of one file.
    package init(_ tree: SourceFileSyntax) {
        let collector = FactsCollector(viewMode: .sourceAccurate)
        collector.walk(tree)
        self = collector.facts
    }

    mutating func declare(_ name: String, _ kind: RxKind) {
        Self.note(name, kind, in: &names, conflicts: &conflicting)
    }

    mutating func declareInferred(_ name: String, _ failure: FailureKind) {
        Self.note(name, failure, in: &inferredFailures, conflicts: &conflicting)
    }

    mutating func declareFunction(_ name: String, _ kind: RxKind) {
        Self.note(name, kind, in: &functions, conflicts: &conflictingFunctions)
    }

    /// Notes that `name` is declared as `value`; a name declared as two different values is dropped for good.
    private static func note<Value: Equatable>(
        _ name: String, _ value: Value, in table: inout [String: Value], conflicts: inout Set<String>
    ) {
        guard !conflicts.contains(name) else { return }
        if let known = table[name], known != value {
            table[name] = nil
            conflicts.insert(name)
        } else {
            table[name] = value
        }
    }

    /// This file's own declarations over the run's: a name this file declares means what it declares here, even
    /// where other files declare it differently.
    package mutating func overlay(_ local: MigrationFacts) {
        for (name, kind) in local.names {
            conflicting.remove(name)
            inferredFailures[name] = nil
            names[name] = kind
        }
        for (name, failure) in local.inferredFailures where local.names[name] == nil {
            conflicting.remove(name)
            names[name] = nil
            inferredFailures[name] = failure
        }
        for (name, kind) in local.functions {
            conflictingFunctions.remove(name)
            functions[name] = kind
        }
    }

    /// Whether an expression is provably an RxSwift publisher: a name or function the facts know, an RxSwift
    /// constructor or static call, an RxCocoa `x.rx.y`, or a chain through an operator only RxSwift has.
    func isRx(_ expression: ExprSyntax) -> Bool {
        if kind(of: expression) != nil { return true }
        if let name = Self.referencedName(expression), inferredFailures[name] != nil { return true }
        if let member = expression.as(MemberAccessExprSyntax.self),
            member.base?.as(MemberAccessExprSyntax.self)?.declName.baseName.text == "rx"
        {
            return true
        }
        if let optional = expression.as(OptionalChainingExprSyntax.self) { return isRx(optional.expression) }
        if let forced = expression.as(ForceUnwrapExprSyntax.self) { return isRx(forced.expression) }
        guard let call = expression.as(FunctionCallExprSyntax.self) else { return false }
        if call.staticRxBase != nil { return true }
        if let name = call.calledName, Self.rxOnlyOperators.contains(name) { return true }
        if let receiver = call.receiver { return isRx(receiver) }
        return false
    }

    /// Operators only RxSwift has (a chain through one is an RxSwift chain).
    static let rxOnlyOperators: Set<String> = [
        "asObservable", "asDriver", "asSignal", "asSingle", "asMaybe", "asCompletable", "observe", "observeOn",
        "subscribeOn", "distinctUntilChanged", "flatMapLatest", "flatMapFirst", "withLatestFrom", "startWith",
        "debounce", "throttle", "catchAndReturn", "catchErrorJustReturn", "catchError", "takeUntil", "skipUntil",
        "takeWhile", "skipWhile", "share", "retry", "retryWhen", "materialize", "withUnretained", "bind", "drive",
        "subscribe", "delaySubscription", "asInfallible",
    ]

    /// Adds another file's facts; a name both declare with different kinds becomes unknown.
    package mutating func merge(_ other: MigrationFacts) {
        for name in other.conflicting {
            names[name] = nil
            inferredFailures[name] = nil
            conflicting.insert(name)
        }
        for name in other.conflictingFunctions {
            functions[name] = nil
            conflictingFunctions.insert(name)
        }
        for (name, kind) in other.names { declare(name, kind) }
        for (name, failure) in other.inferredFailures { declareInferred(name, failure) }
        for (name, kind) in other.functions { declareFunction(name, kind) }
    }

    /// The kind of the value an expression denotes: a declared name (`relay`, `self.relay`, `viewModel.relay`), a
    /// call of a declared function, an RxSwift constructor, or a conversion (`asDriver(...)`).
    func kind(of expression: ExprSyntax) -> RxKind? {
        if let reference = expression.as(DeclReferenceExprSyntax.self) {
            return names[reference.baseName.text]
        }
        if let member = expression.as(MemberAccessExprSyntax.self), member.base != nil {
            return names[member.declName.baseName.text]
        }
        if let forced = expression.as(ForceUnwrapExprSyntax.self) { return kind(of: forced.expression) }
        if let optional = expression.as(OptionalChainingExprSyntax.self) { return kind(of: optional.expression) }
        if let call = expression.as(FunctionCallExprSyntax.self) {
            if let made = rxConstructorKind(call) { return made }
            guard let name = call.calledName else { return nil }
            switch name {
            case "asDriver": return .driver
            case "asSignal": return .signal
            case "asObservable": return .observable
            case "asSingle": return .single
            case "asMaybe": return .maybe
            case "asCompletable": return .completable
            case "asInfallible": return .infallible
            default: break
            }
            if call.receiver == nil || call.receiverText == "self" { return functions[name] }
        }
        return nil
    }

    /// Whether an expression's publisher can fail, following operator chains down to their source.
    func failure(of expression: ExprSyntax) -> FailureKind {
        let call = expression.as(FunctionCallExprSyntax.self)
        if let call, let name = call.calledName, let staticBase = call.staticRxBase {
            // `Observable.just(1)` becomes `Just(1)`: what it is made of, not that it was an Observable, decides.
            if staticBase == "Driver" || staticBase == "Signal" || staticBase == "Infallible" { return .never }
            if staticBase == "Observable" {
                switch name {
                case "just", "of", "from", "range", "interval", "timer", "repeatElement": return .never
                case "combineLatest", "zip", "merge", "concat":
                    return Self.union(call.arguments.map { failure(of: $0.expression) })
                case "deferred":
                    // `Deferred { ... }` fails as the publishers its closure returns do.
                    let returned = call.closures.first.map(Self.returnedExpressions) ?? []
                    return returned.isEmpty ? .error : Self.union(returned.map { failure(of: $0) })
                default: return .error
                }
            }
        }
        if let name = Self.referencedName(expression), names[name] == nil, let failure = inferredFailures[name] {
            return failure
        }
        if let kind = kind(of: expression) {
            // `asObservable()` keeps its receiver's failure: the migration erases it without changing the failure.
            if kind == .observable, let call, call.calledName == "asObservable", let receiver = call.receiver {
                return failure(of: receiver)
            }
            return kind.failure
        }
        if let call, let name = call.calledName {
            if Self.neverProducing.contains(name) { return .never }
            if let member = call.calledExpression.as(MemberAccessExprSyntax.self), member.base == nil {
                // `.just(1)` where the context gives the type: the creation rules make it `Just(1)`.
                switch name {
                case "just", "of", "from", "range": return .never
                case "empty", "never", "error", "create", "deferred": return .error
                default: return .unknown
                }
            }
            guard let receiver = call.receiver else { return .unknown }
            if Self.failureIntroducing.contains(name) { return .error }
            if name == "map" || name == "filter" || name == "compactMap" || name == "scan" {
                if call.closures.contains(where: \.throwsOutsideNestedClosures) { return .error }
            }
            let upstream = failure(of: receiver)
            if Self.innerDependent.contains(name) {
                // The result can fail if the upstream or the inner publishers can.
                return upstream == .error ? .error : .unknown
            }
            return upstream
        }
        if let member = expression.as(MemberAccessExprSyntax.self), member.base == nil {
            // `.just(1)` in a context the migration does not know.
            return .unknown
        }
        return .unknown
    }

    /// What a closure returns: its single expression, or the operands of its `return`s (outside nested closures and
    /// functions).
    static func returnedExpressions(of closure: ClosureExprSyntax) -> [ExprSyntax] {
        if closure.statements.count == 1, let expression = closure.statements.first?.item.as(ExprSyntax.self) {
            return [expression]
        }
        let finder = ReturnFinder(viewMode: .sourceAccurate)
        finder.walk(closure.statements)
        return finder.returned
    }

    /// `x` for `x`, `self.x`, `model.x`.
    static func referencedName(_ expression: ExprSyntax) -> String? {
        if let reference = expression.as(DeclReferenceExprSyntax.self) { return reference.baseName.text }
        if let member = expression.as(MemberAccessExprSyntax.self), member.base != nil {
            return member.declName.baseName.text
        }
        return nil
    }

    private static func union(_ kinds: [FailureKind]) -> FailureKind {
        if kinds.contains(.error) { return .error }
        if kinds.allSatisfy({ $0 == .never }) { return .never }
        return .unknown
    }

    /// Operators whose result cannot fail whatever their receiver.
    static let neverProducing: Set<String> = [
        "asDriver", "asSignal", "asInfallible", "catchAndReturn", "catchErrorJustReturn", "replaceError",
        "assertNoFailure",
    ]

    /// Operators whose result can fail whatever their receiver.
    static let failureIntroducing: Set<String> = [
        "tryMap", "tryFilter", "tryCompactMap", "tryScan", "timeout", "asSingle", "asMaybe", "asCompletable",
        // RxSwift's `element(at:)` (UntangleExtras' after the migration) fails when the source ends before the index.
        "element", "elementAt",
    ]

    /// Operators whose result's failure depends on the publishers they subscribe to besides their receiver (every
    /// other operator fails exactly when its receiver does).
    static let innerDependent: Set<String> = [
        "flatMap", "flatMapLatest", "flatMapFirst", "concatMap", "catch", "catchError", "switchLatest",
        "switchToLatest", "merge", "concat",
    ]

    /// The kind an RxSwift constructor call makes: `PublishRelay<Int>()`, `BehaviorSubject(value: 0)`,
    /// `ReplaySubject<Int>.create(bufferSize: 1)`, `DisposeBag()`.
    func rxConstructorKind(_ call: FunctionCallExprSyntax) -> RxKind? {
        var callee = ExprSyntax(call.calledExpression)
        if let member = callee.as(MemberAccessExprSyntax.self), let base = member.base,
            ["create", "createUnbounded", "instance", "just", "empty", "error", "never", "deferred", "from", "of"]
                .contains(member.declName.baseName.text)
        {
            // `ReplaySubject<Int>.create(bufferSize:)` makes a subject; `Observable.just(1)` an observable.
            callee = base
        }
        if let generic = callee.as(GenericSpecializationExprSyntax.self) { callee = generic.expression }
        guard let reference = callee.as(DeclReferenceExprSyntax.self) else { return nil }
        return RxKind(typeName: reference.baseName.text)
    }
}

extension FunctionCallExprSyntax {
    /// `Observable` in `Observable.just(1)` or `Observable<Int>.just(1)`: the RxSwift type a static call is made on.
    var staticRxBase: String? {
        guard let member = calledExpression.as(MemberAccessExprSyntax.self), var base = member.base else { return nil }
        if let generic = base.as(GenericSpecializationExprSyntax.self) { base = generic.expression }
        guard let reference = base.as(DeclReferenceExprSyntax.self) else { return nil }
        let name = reference.baseName.text
        return ["Observable", "Driver", "Signal", "Single", "Maybe", "Completable", "Infallible"].contains(name)
            ? name : nil
    }
}

extension ClosureExprSyntax {
    /// Whether the body has a `try` (not `try?`/`try!`) outside nested closures: RxSwift's `map` may throw, Combine's
    /// may not (it becomes `tryMap`).
    var throwsOutsideNestedClosures: Bool {
        let finder = ThrowingTryFinder(viewMode: .sourceAccurate)
        finder.walk(statements)
        return finder.found
    }
}

private final class ReturnFinder: SyntaxVisitor {
    var returned: [ExprSyntax] = []

    override func visit(_ node: ClosureExprSyntax) -> SyntaxVisitorContinueKind { .skipChildren }
    override func visit(_ node: FunctionDeclSyntax) -> SyntaxVisitorContinueKind { .skipChildren }

    override func visit(_ node: ReturnStmtSyntax) -> SyntaxVisitorContinueKind {
        if let expression = node.expression { returned.append(expression) }
        return .skipChildren
    }
}

private final class ThrowingTryFinder: SyntaxVisitor {
    var found = false

    override func visit(_ node: ClosureExprSyntax) -> SyntaxVisitorContinueKind { .skipChildren }
    override func visit(_ node: FunctionDeclSyntax) -> SyntaxVisitorContinueKind { .skipChildren }

    override func visit(_ node: TryExprSyntax) -> SyntaxVisitorContinueKind {
        if node.questionOrExclamationMark == nil { found = true }
        return .visitChildren
    }
}

/// The type an RxSwift type annotation names: `PublishRelay` in `PublishRelay<Int>?`, `RxRelay.PublishRelay<Int>`.
func rxTypeName(_ type: TypeSyntax) -> String? {
    if let optional = type.as(OptionalTypeSyntax.self) { return rxTypeName(optional.wrappedType) }
    if let forced = type.as(ImplicitlyUnwrappedOptionalTypeSyntax.self) { return rxTypeName(forced.wrappedType) }
    if let attributed = type.as(AttributedTypeSyntax.self) { return rxTypeName(attributed.baseType) }
    if let identifier = type.as(IdentifierTypeSyntax.self) { return identifier.name.text }
    if let member = type.as(MemberTypeSyntax.self),
        ["RxSwift", "RxCocoa", "RxRelay"].contains(member.baseType.trimmedDescription)
    {
        return member.name.text
    }
    return nil
}

private final class FactsCollector: SyntaxVisitor {
    var facts = MigrationFacts()

    override func visit(_ node: PatternBindingSyntax) -> SyntaxVisitorContinueKind {
        guard let name = node.pattern.as(IdentifierPatternSyntax.self)?.identifier.text else { return .visitChildren }
        if let type = node.typeAnnotation?.type, let typeName = rxTypeName(type), let kind = RxKind(typeName: typeName)
        {
            facts.declare(name, kind)
        } else if let value = node.initializer?.value {
            let failure = facts.failure(of: value)
            if let call = value.as(FunctionCallExprSyntax.self), call.staticRxBase == "Observable" {
                // `Observable.of(1, 2)` is migrated by what it is made of (`[1, 2].publisher`): its failure counts.
                facts.declareInferred(name, failure)
            } else if let kind = facts.kind(of: value) {
                facts.declare(name, kind)
            } else if failure != .unknown {
                facts.declareInferred(name, failure)
            }
        }
        return .visitChildren
    }

    override func visit(_ node: FunctionParameterSyntax) -> SyntaxVisitorContinueKind {
        let name = (node.secondName ?? node.firstName).text
        if name != "_", let typeName = rxTypeName(node.type), let kind = RxKind(typeName: typeName) {
            facts.declare(name, kind)
        }
        return .visitChildren
    }

    override func visit(_ node: FunctionDeclSyntax) -> SyntaxVisitorContinueKind {
        if let type = node.signature.returnClause?.type, let typeName = rxTypeName(type),
            let kind = RxKind(typeName: typeName)
        {
            facts.declareFunction(node.name.text, kind)
        }
        return .visitChildren
    }
}
