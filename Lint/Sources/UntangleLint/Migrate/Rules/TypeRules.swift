// Types: RxSwift's type names become Untangle's. `Observable<T>` is `AnyPublisher<T, Error>` (an Observable can always
// fail); what provably cannot fail keeps `Never` (`Infallible<T>` is `AnyPublisher<T, Never>`, relays and drivers
// are Never-failing types of their own). Subjects, relays, traits and disposables map one to one. Extensions of
// `ObservableType` become extensions of `Publisher where Failure == Error` (their `Element` is `Output`), so that the
// `Observable<...>` they return keeps the same type everywhere. What has no counterpart (`AnyObserver`, `Binder`,
// `SchedulerType`, RxCocoa's `Reactive` extensions...) is left with a reason.

import SwiftSyntax

final class TypeRules: MigrationRule {
    override class var id: String { "types" }

    /// One-argument generic types: RxSwift name → Untangle spelling, with `$0` for the argument.
    static let generic: [String: String] = [
        "Observable": "AnyPublisher<$0, Error>",
        "PublishSubject": "PassthroughSubject<$0, Error>",
        "BehaviorSubject": "CurrentValueSubject<$0, Error>",
        "ReplaySubject": "ReplaySubject<$0, Error>",
        "PublishRelay": "PassthroughRelay<$0>",
        "BehaviorRelay": "CurrentValueRelay<$0>",
        "Single": "Single<$0, Error>",
        "Maybe": "Maybe<$0, Error>",
        "Infallible": "AnyPublisher<$0, Never>",
    ]

    /// Plain types: RxSwift name → Untangle name.
    static let plain: [String: String] = [
        "Completable": "Completable<Error>",
        "DisposeBag": "CancelBag",
        "Disposable": "AnyCancellable",
        "Cancelable": "AnyCancellable",
        "CompositeDisposable": "CompositeCancellable",
        "SerialDisposable": "SerialCancellable",
        "SingleAssignmentDisposable": "SerialCancellable",
        "MainScheduler": "MainThreadScheduler",
        "RxTimeInterval": "DispatchQueue.SchedulerTimeType.Stride",
    ]

    /// Types with no counterpart, and what to do instead.
    static let unmatched: [String: String] = [
        "AnyObserver":
            "AnyObserver has no counterpart: pass the subject or relay itself (send/accept), or a closure",
        "ObserverType": "ObserverType has no counterpart: take a Subject, a relay or a closure",
        "Binder": "Binder (RxCocoa) has no counterpart: use assign(to:on:ownership:) on the main thread, or a closure",
        "ControlEvent": "ControlEvent (RxCocoa) has no counterpart: publish the control's events yourself",
        "ControlProperty": "ControlProperty (RxCocoa) has no counterpart: publish the control's values yourself",
        "SchedulerType":
            "SchedulerType has no counterpart: use a concrete scheduler type (DispatchQueue, MainThreadScheduler) "
            + "or make the declaration generic over Scheduler",
        "ImmediateSchedulerType":
            "ImmediateSchedulerType has no counterpart: use a concrete scheduler type or a generic Scheduler",
        "SharedSequence": "SharedSequence: use Driver or Signal (UntangleExtras)",
        "PrimitiveSequence": "PrimitiveSequence: use Single, Maybe or Completable (UntangleExtras)",
        "AsyncSubject": "AsyncSubject has no counterpart: a Future, or a subject followed by last()",
        "ReplayRelay": "ReplayRelay has no counterpart: ReplaySubject<T, Never> with send instead of accept",
    ]

    override func rewrite(_ node: IdentifierTypeSyntax, original: IdentifierTypeSyntax) -> TypeSyntax? {
        if original.parent?.is(ExtensionDeclSyntax.self) == true { return nil }
        if node.name.text == "Element", Self.inPublisherExtension(original) {
            let replacement = node.with(\.name, node.name.with(\.tokenKind, .identifier("Output")))
            record(original, replacement)
            return TypeSyntax(replacement)
        }
        return rewriteType(
            node, named: node.name.text, arguments: node.genericArgumentClause?.arguments, original: original)
    }

    /// A generic RxSwift type written in an expression: `[String: PublishSubject<Int>]()`, `Observable<Int>.self`.
    override func rewrite(_ node: GenericSpecializationExprSyntax, original: GenericSpecializationExprSyntax)
        -> ExprSyntax?
    {
        guard let name = node.expression.as(DeclReferenceExprSyntax.self)?.baseName.text,
            let template = Self.generic[name], node.genericArgumentClause.arguments.count == 1
        else { return nil }
        let replacement = parseExpression(Self.fill(template, node.genericArgumentClause.arguments.trimmedDescription))
            .withTrivia(of: node)
        record(original, replacement)
        return replacement
    }

    override func rewrite(_ node: MemberTypeSyntax, original: MemberTypeSyntax) -> TypeSyntax? {
        if node.name.text == "Element", let base = original.baseType.as(IdentifierTypeSyntax.self),
            Self.observableGenericParameters(around: original).contains(base.name.text)
        {
            // `O.Element` of a generic `O: ObservableType` is the publisher's `O.Output`.
            let replacement = node.with(\.name, node.name.with(\.tokenKind, .identifier("Output")))
            record(original, replacement)
            return TypeSyntax(replacement)
        }
        // `RxSwift.Observable<Int>`: the module-qualified spelling.
        guard ["RxSwift", "RxCocoa", "RxRelay"].contains(node.baseType.trimmedDescription) else { return nil }
        return rewriteType(
            node, named: node.name.text, arguments: node.genericArgumentClause?.arguments, original: original)
    }

    /// The Untangle type for the RxSwift type `name<arguments>` (written `node`, `original` in the file).
    private func rewriteType(
        _ node: some TypeSyntaxProtocol, named name: String, arguments: GenericArgumentListSyntax?,
        original: some TypeSyntaxProtocol
    ) -> TypeSyntax? {
        if let template = Self.generic[name], let arguments, arguments.count == 1 {
            return replace(node, original, Self.fill(template, arguments.trimmedDescription))
        }
        if name == "SharedSequence", let arguments, arguments.count == 2 {
            // `SharedSequence<DriverSharingStrategy, T>` is a Driver; generic over the strategy, a publisher that
            // cannot fail.
            let strategy = arguments.first!.argument.trimmedDescription
            let element = arguments.last!.argument.trimmedDescription
            switch strategy {
            case "DriverSharingStrategy": return replace(node, original, "Driver<\(element)>")
            case "SignalSharingStrategy": return replace(node, original, "Signal<\(element)>")
            default: return replace(node, original, "AnyPublisher<\(element), Never>")
            }
        }
        if name == "Event", arguments?.count == 1 {
            spot(original, "RxSwift's Event: UntangleExtras' Event<Output, Failure> has .value and .completion cases")
            return nil
        }
        if let replacement = Self.plain[name], arguments == nil {
            if name == "RxTimeInterval" { context.usesDispatch = true }
            return replace(node, original, replacement)
        }
        if name == "ObservableType" || name == "ObservableConvertibleType" {
            if original.parent?.is(InheritedTypeSyntax.self) == true
                || original.parent?.is(ConformanceRequirementSyntax.self) == true
                || original.parent?.is(GenericParameterSyntax.self) == true
            {
                return replace(node, original, "Publisher")
            }
            spot(original, "\(name) as a type: take a Publisher (generic) or AnyPublisher<Output, Error>")
            return nil
        }
        if let reason = Self.unmatched[name] {
            spot(original, reason)
        }
        return nil
    }

    /// `template` with `$0` replaced by `argument`.
    static func fill(_ template: String, _ argument: String) -> String {
        var result = ""
        var rest = Substring(template)
        while let range = rest.firstRange(of: "$0") {
            result += rest[..<range.lowerBound] + argument
            rest = rest[range.upperBound...]
        }
        return result + rest
    }

    override func rewrite(_ node: ExtensionDeclSyntax, original: ExtensionDeclSyntax) -> DeclSyntax? {
        let extended = original.extendedType.trimmedDescription
        let target: String
        var requirement: String
        switch extended {
        case "ObservableType", "ObservableConvertibleType", "RxSwift.ObservableType":
            target = "Publisher"
            requirement = "Failure == Error"
        case "Observable", "RxSwift.Observable":
            target = "AnyPublisher"
            requirement = "Failure == Error"
        case "SharedSequence", "SharedSequenceConvertibleType":
            target = "Publisher"
            requirement = "Failure == Never"
        case "Reactive":
            spot(original, "RxCocoa's Reactive extension: publish these events or bind these values with Untangle")
            return nil
        case "PrimitiveSequence", "PrimitiveSequenceType":
            spot(original, "a PrimitiveSequence extension: move it onto Single, Maybe or Completable (UntangleExtras)")
            return nil
        default:
            return nil
        }
        var decl = node.with(
            \.extendedType,
            TypeSyntax(IdentifierTypeSyntax(name: .identifier(target))).withTrivia(of: node.extendedType))
        let requirements = (node.genericWhereClause?.requirements).map { list in
            // SharedSequence's strategy requirement (`SharingStrategy == DriverSharingStrategy`) has no counterpart.
            list.filter {
                !$0.trimmedDescription.hasPrefix("SharingStrategy") && !$0.trimmedDescription.hasPrefix("Trait")
            }
        }
        if let requirements, !requirements.isEmpty {
            let kept = requirements.map { $0.with(\.trailingComma, nil).trimmedDescription }
            requirement = (kept + [requirement]).joined(separator: ", ")
        }
        let whereClause = "where \(requirement)"
        var parsedClause = Self.parseWhereClause(whereClause)
        if let old = node.genericWhereClause {
            parsedClause = parsedClause.withTrivia(of: old)
        } else {
            parsedClause = parsedClause.with(\.leadingTrivia, .space).with(\.trailingTrivia, .space)
            decl = decl.with(\.extendedType, decl.extendedType.with(\.trailingTrivia, []))
        }
        decl = decl.with(\.genericWhereClause, parsedClause)
        record(original.extendedType, decl.extendedType)
        return DeclSyntax(decl)
    }

    /// A function generic over `O: ObservableType` needs `O.Failure == Error` where it returns `Observable<...>`
    /// (now `AnyPublisher<..., Error>`) made of `O`.
    override func rewrite(_ node: FunctionDeclSyntax, original: FunctionDeclSyntax) -> DeclSyntax? {
        let parameters = Self.observableParameters(of: original)
        guard !parameters.isEmpty else { return nil }
        let added = parameters.map { "\($0).Failure == Error" }
        let kept =
            node.genericWhereClause.map { clause in
                clause.requirements.map { $0.with(\.trailingComma, nil).trimmedDescription }
            } ?? []
        var clause = Self.parseWhereClause("where " + (kept + added).joined(separator: ", "))
        var decl = node
        if let old = node.genericWhereClause {
            clause = clause.withTrivia(of: old)
        } else {
            clause = clause.with(\.leadingTrivia, .space)
            decl = decl.with(\.signature, decl.signature.with(\.trailingTrivia, []))
            clause = clause.with(\.trailingTrivia, node.signature.trailingTrivia)
        }
        decl = decl.with(\.genericWhereClause, clause)
        record(original.signature, decl.signature)
        return DeclSyntax(decl)
    }

    /// The names of a declaration's generic parameters constrained to ObservableType or ObservableConvertibleType.
    static func observableParameters(of decl: FunctionDeclSyntax) -> [String] {
        let observable: Set<String> = ["ObservableType", "ObservableConvertibleType"]
        var names: [String] = []
        for parameter in decl.genericParameterClause?.parameters ?? [] {
            if let inherited = parameter.inheritedType, observable.contains(inherited.trimmedDescription) {
                names.append(parameter.name.text)
            }
        }
        for requirement in decl.genericWhereClause?.requirements ?? [] {
            if case .conformanceRequirement(let conformance) = requirement.requirement,
                observable.contains(conformance.rightType.trimmedDescription)
            {
                names.append(conformance.leftType.trimmedDescription)
            }
        }
        return names
    }

    /// The generic parameters constrained to an observable protocol in the declarations around `node`.
    static func observableGenericParameters(around node: some SyntaxProtocol) -> Set<String> {
        var names = Set<String>()
        for ancestor in node.ancestors {
            if let function = ancestor.as(FunctionDeclSyntax.self) {
                names.formUnion(observableParameters(of: function))
            }
        }
        return names
    }

    /// Whether `node` is inside an extension of ObservableType, Observable or SharedSequence (whose `Element` is the
    /// migrated publisher's `Output`).
    static func inPublisherExtension(_ node: some SyntaxProtocol) -> Bool {
        for ancestor in node.ancestors {
            if let decl = ancestor.as(ExtensionDeclSyntax.self) {
                return [
                    "ObservableType", "ObservableConvertibleType", "Observable", "SharedSequence",
                    "SharedSequenceConvertibleType", "RxSwift.ObservableType", "RxSwift.Observable",
                ].contains(decl.extendedType.trimmedDescription)
            }
            if ancestor.is(StructDeclSyntax.self) || ancestor.is(ClassDeclSyntax.self) { return false }
        }
        return false
    }

    static func parseWhereClause(_ text: String) -> GenericWhereClauseSyntax {
        let decl = parseDecl("extension X \(text) {}")
        return decl.as(ExtensionDeclSyntax.self)!.genericWhereClause!.trimmed
    }

    private func replace(_ node: some TypeSyntaxProtocol, _ original: some TypeSyntaxProtocol, _ text: String)
        -> TypeSyntax
    {
        let replacement = parseType(text).withTrivia(of: node)
        record(original, replacement)
        return replacement
    }
}
