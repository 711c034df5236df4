// Counts the RxSwift-only constructs of a file by syntax, independently of the rules that rewrite them: run on a file
// before and after migration, it measures the share rewritten (what `--report json` and the corpus numbers give).
// A construct counts only when it cannot be Untangle's: `Single<Int>` (RxSwift's one generic argument) counts,
// `Single<Int, Error>` does not; `drive(onNext:)` counts, `drive { }` does not.

import SwiftSyntax

/// Counts RxSwift-only constructs by category.
package enum RxConstructCounter {
    /// The categories, in report order. `operators` (RxSwift-only operator names) is reported beside the others but
    /// is not part of the headline share.
    package static let categories = [
        "types", "subjects", "bags", "subscribe", "disposed", "schedulers", "asObservable", "bind", "observerCalls",
        "operators",
    ]

    /// The categories the headline share counts (the list).
    package static let headline = Set(categories.filter { $0 != "operators" })

    /// The number of constructs of each category in `tree` (categories with none are absent).
    package static func count(_ tree: some SyntaxProtocol) -> [String: Int] {
        let visitor = CountingVisitor(viewMode: .sourceAccurate)
        visitor.walk(tree)
        return visitor.counts
    }

    static let typeNames: Set<String> = [
        "Observable", "Infallible", "AnyObserver", "ObservableType", "ObservableConvertibleType", "Disposable",
        "Disposables", "CompositeDisposable", "SerialDisposable", "SingleAssignmentDisposable", "RxTimeInterval",
        "PrimitiveSequence", "SharedSequence", "Binder", "ObserverType",
    ]
    static let subjectNames: Set<String> = [
        "PublishSubject", "BehaviorSubject", "AsyncSubject", "PublishRelay", "BehaviorRelay", "ReplayRelay",
    ]
    static let schedulerNames: Set<String> = [
        "MainScheduler", "ConcurrentDispatchQueueScheduler", "SerialDispatchQueueScheduler", "CurrentThreadScheduler",
        "OperationQueueScheduler", "ConcurrentMainScheduler", "SchedulerType", "ImmediateSchedulerType",
    ]
    static let subscribeLabels: Set<String> = [
        "onNext", "onError", "onCompleted", "onSuccess", "onFailure", "onDisposed",
    ]
    static let rxOperators: Set<String> = [
        "distinctUntilChanged", "startWith", "catchAndReturn", "catchErrorJustReturn", "catchError", "takeUntil",
        "skipUntil", "takeWhile", "skipWhile", "observeOn", "subscribeOn", "debug", "toArray", "elementAt",
        "switchLatest", "flatMapWithIndex", "retryWhen", "asObserver",
    ]
}

private final class CountingVisitor: SyntaxVisitor {
    var counts: [String: Int] = [:]

    func add(_ category: String) {
        counts[category, default: 0] += 1
    }

    /// A type name counts by its name and number of generic arguments.
    func countType(_ name: String, arguments: Int) {
        if RxConstructCounter.typeNames.contains(name) {
            add("types")
        } else if RxConstructCounter.subjectNames.contains(name) || (name == "ReplaySubject" && arguments == 1) {
            add("subjects")
        } else if name == "DisposeBag" {
            add("bags")
        } else if RxConstructCounter.schedulerNames.contains(name) {
            add("schedulers")
        } else if (name == "Single" || name == "Maybe" || name == "Event") && arguments == 1 {
            add("types")
        } else if name == "Completable" && arguments == 0 {
            add("types")
        }
    }

    override func visit(_ node: IdentifierTypeSyntax) -> SyntaxVisitorContinueKind {
        countType(node.name.text, arguments: node.genericArgumentClause?.arguments.count ?? 0)
        return .visitChildren
    }

    override func visit(_ node: MemberTypeSyntax) -> SyntaxVisitorContinueKind {
        if ["RxSwift", "RxCocoa", "RxRelay"].contains(node.baseType.trimmedDescription) {
            countType(node.name.text, arguments: node.genericArgumentClause?.arguments.count ?? 0)
            return .skipChildren
        }
        return .visitChildren
    }

    override func visit(_ node: GenericSpecializationExprSyntax) -> SyntaxVisitorContinueKind {
        if let reference = node.expression.as(DeclReferenceExprSyntax.self) {
            countType(reference.baseName.text, arguments: node.genericArgumentClause.arguments.count)
            walk(node.genericArgumentClause)
            return .skipChildren
        }
        return .visitChildren
    }

    override func visit(_ node: DeclReferenceExprSyntax) -> SyntaxVisitorContinueKind {
        // A type name used as an expression: `DisposeBag()`, `Observable.just(1)`, `MainScheduler.instance`.
        // `Single.create` (no generic arguments) stays Untangle's spelling, so only the unambiguous names count.
        let name = node.baseName.text
        let isMemberName = node.parent?.as(MemberAccessExprSyntax.self)?.declName.id == node.id
        guard !isMemberName, name.first?.isUppercase == true else { return .visitChildren }
        if name == "ReplaySubject" || name == "Completable" {
            // `ReplaySubject.create(bufferSize:)` and `Completable.empty()` are RxSwift's; Untangle's spell
            // `ReplaySubject(bufferSize:)` and `Completable<Error>.empty`.
            if let member = node.parent?.as(MemberAccessExprSyntax.self),
                ["create", "createUnbounded", "empty", "error"].contains(member.declName.baseName.text),
                member.parent?.is(FunctionCallExprSyntax.self) == true
            {
                countType(name, arguments: name == "ReplaySubject" ? 1 : 0)
            }
            return .visitChildren
        }
        if name != "Single" && name != "Maybe" && name != "Event" {
            countType(name, arguments: 0)
        }
        return .visitChildren
    }

    override func visit(_ node: FunctionCallExprSyntax) -> SyntaxVisitorContinueKind {
        guard let name = node.calledName else { return .visitChildren }
        let labels = Set(node.argumentLabels)
        let isMethod = node.receiver != nil
        switch name {
        case "subscribe", "drive", "emit":
            if !labels.isDisjoint(with: RxConstructCounter.subscribeLabels) || labels.contains("with") {
                add("subscribe")
            } else if name != "subscribe" && labels.contains("to") {
                add("bind")
            } else if name != "subscribe" && labels == [""] && node.trailingClosure == nil
                && node.arguments.first?.expression.is(ClosureExprSyntax.self) == false
            {
                add("bind")
            }
        case "disposed" where labels.contains("by"): add("disposed")
        case "asObservable" where isMethod: add("asObservable")
        case "bind" where isMethod: add("bind")
        case "onNext", "onError",
            "onCompleted" where isMethod:
            add("observerCalls")
        case "on" where isMethod && node.arguments.count == 1:
            let text = node.arguments.first?.expression.trimmedDescription ?? ""
            if text.hasPrefix(".next") || text.hasPrefix(".error") || text.hasPrefix(".completed") {
                add("observerCalls")
            }
        case "observe" where labels.contains("on"): add("schedulers")
        default:
            if isMethod && RxConstructCounter.rxOperators.contains(name) { add("operators") }
        }
        return .visitChildren
    }
}
