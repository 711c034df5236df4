// Small syntax questions the rules share: what a call is called, which call a closure is an argument of, whether
// code runs on another thread (a dispatch, a Task, a Thread), whether a closure captures `self` strongly.

import SwiftSyntax

extension FunctionCallExprSyntax {
    /// The called name: `sink` for `a.b.sink(...)`, `Future` for `Future { }` or `Future<Int, Never> { }`.
    package var calledName: String? {
        var callee = ExprSyntax(calledExpression)
        if let generic = callee.as(GenericSpecializationExprSyntax.self) { callee = generic.expression }
        if let member = callee.as(MemberAccessExprSyntax.self) { return member.declName.baseName.text }
        if let ref = callee.as(DeclReferenceExprSyntax.self) { return ref.baseName.text }
        return nil
    }

    /// The receiver's source text: `DispatchQueue.main` for `DispatchQueue.main.sync { }`; nil for a free call.
    package var receiverText: String? {
        calledExpression.as(MemberAccessExprSyntax.self)?.base?.trimmedDescription
    }

    /// The receiver expression of a method call.
    package var receiver: ExprSyntax? {
        calledExpression.as(MemberAccessExprSyntax.self)?.base
    }

    /// The labels of the arguments, in order ("" for an unlabeled one).
    package var argumentLabels: [String] {
        arguments.map { $0.label?.text ?? "" }
    }

    /// The argument with this label.
    package func argument(_ label: String) -> ExprSyntax? {
        arguments.first { ($0.label?.text ?? "") == label }?.expression
    }

    /// Every closure passed to this call: labeled arguments, the trailing closure, additional trailing closures.
    package var closures: [ClosureExprSyntax] {
        var result = arguments.compactMap { $0.expression.as(ClosureExprSyntax.self) }
        if let trailing = trailingClosure { result.append(trailing) }
        result.append(contentsOf: additionalTrailingClosures.map(\.closure))
        return result
    }

    /// The calls of a method chain below this one: `a.x().y()` seen from `y()` gives `[x()]`.
    package var chainBelow: [FunctionCallExprSyntax] {
        var result: [FunctionCallExprSyntax] = []
        var expr = receiver
        while let current = expr {
            if let call = current.as(FunctionCallExprSyntax.self) {
                result.append(call)
                expr = call.receiver
            } else if let member = current.as(MemberAccessExprSyntax.self) {
                expr = member.base
            } else if let optional = current.as(OptionalChainingExprSyntax.self) {
                expr = optional.expression
            } else if let forced = current.as(ForceUnwrapExprSyntax.self) {
                expr = forced.expression
            } else {
                break
            }
        }
        return result
    }
}

extension ClosureExprSyntax {
    /// The call this closure is an argument (or trailing closure) of.
    package var enclosingCall: FunctionCallExprSyntax? {
        var node = Syntax(self).parent
        while let current = node {
            if let call = current.as(FunctionCallExprSyntax.self) { return call }
            if current.is(LabeledExprSyntax.self) || current.is(LabeledExprListSyntax.self)
                || current.is(MultipleTrailingClosureElementSyntax.self)
                || current.is(MultipleTrailingClosureElementListSyntax.self)
            {
                node = current.parent
                continue
            }
            return nil
        }
        return nil
    }

    /// Whether the capture list weakens `self` (`[weak self]`, `[unowned self]`, `[weak owner = self]`).
    package var weakensSelf: Bool {
        guard let items = signature?.capture?.items else { return false }
        return items.contains { item in
            let specifier = item.specifier?.specifier.text
            guard specifier == "weak" || specifier == "unowned" else { return false }
            return item.name.tokenKind == .keyword(.self) || item.name.text == "self"
                || item.initializer?.value.trimmedDescription == "self"
        }
    }

    /// Whether the body uses `self` outside nested closures that weaken it themselves.
    package var usesSelfStrongly: Bool {
        let finder = SelfUseFinder(viewMode: .sourceAccurate)
        finder.walk(statements)
        return finder.found
    }

    /// Whether the body uses the anonymous arguments `$0`, `$1`...
    package var usesAnonymousArguments: Bool {
        statements.tokens(viewMode: .sourceAccurate).contains {
            if case .dollarIdentifier = $0.tokenKind { return true }
            return false
        }
    }
}

private final class SelfUseFinder: SyntaxVisitor {
    var found = false

    override func visit(_ node: ClosureExprSyntax) -> SyntaxVisitorContinueKind {
        node.weakensSelf ? .skipChildren : .visitChildren
    }

    override func visit(_ node: DeclReferenceExprSyntax) -> SyntaxVisitorContinueKind {
        // `String.self` names a metatype, not the instance: only a `self` that is not a member's name counts.
        let isMetatype = node.parent?.as(MemberAccessExprSyntax.self)?.declName.id == node.id
        if node.baseName.tokenKind == .keyword(.self) && !isMetatype { found = true }
        return .skipChildren
    }
}

/// Calls whose closures run later on another thread, or concurrently: GCD dispatches, Tasks, Threads, operations.
private let spawningNames: Set<String> = [
    "async", "asyncAfter", "concurrentPerform", "addOperation", "detachNewThread", "detached",
]

extension FunctionCallExprSyntax {
    /// Whether this call runs its closure on another thread or concurrently (syntax: by its name and receiver).
    package var spawnsConcurrentWork: Bool {
        guard let name = calledName else { return false }
        if name == "Task" || name == "Thread" { return receiverText == nil }
        if name == "detached" { return receiverText == "Task" }
        if name == "async" || name == "asyncAfter" {
            // `x.async { }` on a queue: GCD's dispatch. (Free `async { }` is the old Task spelling.)
            return true
        }
        return spawningNames.contains(name)
    }

    /// Whether this call submits work to a global (shared, concurrent) GCD queue.
    package var submitsToGlobalQueue: Bool {
        guard let name = calledName, name == "async" || name == "asyncAfter" || name == "concurrentPerform"
        else { return false }
        if name == "concurrentPerform" { return true }
        return receiverText?.contains("global(") == true || receiverText == ".global()"
    }
}

extension SyntaxProtocol {
    /// Whether this code runs off the main thread, as far as the enclosing closures show: work dispatched to a queue
    /// that is not the main one, `Task.detached`, a `Task` outside a main-bound type, a `Thread`, an operation, a
    /// URLSession completion handler, a subscriber closure whose chain delivers off the main thread; or, outside
    /// closures, the body of an `async` function of a type not bound to the main thread.
    package func runsOffMain(_ declarations: FileDeclarations) -> Bool {
        for closure in enclosingClosures {
            if closure.signature?.attributes.contains(where: {
                $0.as(AttributeSyntax.self)?.attributeName.trimmedDescription == "MainActor"
            }) == true {
                return false
            }
            guard let call = closure.enclosingCall, let name = call.calledName else { continue }
            switch name {
            case "async", "asyncAfter":
                guard let queue = call.receiver else { continue }
                return declarations.schedulerKind(queue) != .main
            case "detached", "detachNewThread", "concurrentPerform", "addOperation", "Thread":
                return true
            case "Task":
                return !call.inMainBoundType(declarations)
            case "dataTask", "downloadTask", "uploadTask":
                return true
            case "sink", "subscribe", "bind", "drive":
                switch call.delivery(declarations) {
                case .main: return false
                case .offMain: return true
                case .unknown: continue
                }
            default:
                continue
            }
        }
        // A nonisolated `async` function runs on the global executor (SE-0338): off the main thread, unless its type
        // is bound to the main thread.
        if let function = enclosingFunction, function.signature.effectSpecifiers?.asyncSpecifier != nil,
            enclosingClosures.isEmpty, !function.inMainBoundType(declarations),
            !function.attributes.contains(where: {
                $0.as(AttributeSyntax.self)?.attributeName.trimmedDescription == "MainActor"
            })
        {
            return true
        }
        return false
    }

    /// The innermost enclosing function-like scope boundary (a function, initializer, accessor, or closure).
    package var ancestors: AnySequence<Syntax> {
        AnySequence(sequence(first: Syntax(self).parent) { $0?.parent }.lazy.compactMap { $0 })
    }

    /// Enclosing closures up to the enclosing function declaration, innermost first.
    package var enclosingClosures: [ClosureExprSyntax] {
        var result: [ClosureExprSyntax] = []
        for node in ancestors {
            if let closure = node.as(ClosureExprSyntax.self) { result.append(closure) }
            if node.is(FunctionDeclSyntax.self) || node.is(InitializerDeclSyntax.self)
                || node.is(AccessorDeclSyntax.self) || node.is(DeinitializerDeclSyntax.self)
            {
                break
            }
        }
        return result
    }

    /// The enclosing function declaration, if any (through closures).
    package var enclosingFunction: FunctionDeclSyntax? {
        for node in ancestors {
            if let function = node.as(FunctionDeclSyntax.self) { return function }
            if node.is(InitializerDeclSyntax.self) || node.is(AccessorDeclSyntax.self) { return nil }
        }
        return nil
    }

    /// Whether the innermost enclosing type declaration is a class, an actor, or an extension (of a type syntax cannot
    /// see, which may be a class): where a stored closure capturing `self` can make a cycle.
    package var inReferenceTypeOrExtension: Bool {
        for node in ancestors {
            if node.is(ClassDeclSyntax.self) || node.is(ActorDeclSyntax.self) || node.is(ExtensionDeclSyntax.self) {
                return true
            }
            if node.is(StructDeclSyntax.self) || node.is(EnumDeclSyntax.self) || node.is(ProtocolDeclSyntax.self) {
                return false
            }
        }
        return false
    }
}

/// The last identifier of an expression's text: `semaphore` for `self.semaphore`.
package func lastComponent(_ text: String) -> String {
    text.split(separator: ".").last.map(String.init) ?? text
}

/// What rules need to know of a file's variable declarations before their walk: gathered in one walk for all of
/// them (``FileContext/declarations``), not one walk a rule.
package struct FileDeclarations {
    /// A variable declared in the file (at any depth) with a plain name: its initializer's and type's text.
    package struct Binding {
        package let name: String
        package let value: String
        package let type: String
    }

    package var bindings: [Binding] = []
    /// The names of `@Published` properties (declarations not nested in another variable's declaration).
    package var published: Set<String> = []
    /// The names of the instance methods declared in the file's types and extensions.
    package var methods: Set<String> = []
    /// Subjects (and relays) the file sends to from work off the main thread: name → the line of the first such send.
    package var sentOffMain: [String: Int] = [:]
    /// Properties the file assigns from work off the main thread: name → the line of the first such assignment.
    package var assignedOffMain: [String: Int] = [:]
    /// Computed publisher properties that only erase another: `var changes: AnyPublisher<...> { subject.eraseTo... }`
    /// maps `changes` to `subject`.
    package var publisherAliases: [String: String] = [:]
    /// The types the file declares (or extends) bound to the main thread.
    package var mainBoundTypes: Set<String> = []
    /// Of those, the views, controllers, cells and windows, and the `@MainActor` types.
    package var viewTypes: Set<String> = []
    /// Each type's, extension's and type alias's inherited (or aliased) type names: the edges along which the files
    /// linted together propagate main-bound types.
    package var inheritance: [String: [String]] = [:]
    /// Facts from the other files linted together; nil when the file is linted alone.
    package var crossFile: CrossFileFacts?
    /// The file's methods that set a `@Published` property or a UIKit-style property outside a closure that hops to
    /// the main thread: calling one off the main thread updates main-thread state.
    package var mainStateMethods: Set<String> = []

    /// The names of the variables whose binding matches `predicate`.
    package func names(where predicate: (Binding) -> Bool) -> Set<String> {
        Set(bindings.lazy.filter(predicate).map(\.name))
    }

    /// Whether a method body assigns a `@Published` or UIKit-style property outside every closure that hops to main.
    private static func setsMainState(_ body: CodeBlockSyntax, published: Set<String>) -> Bool {
        for token in body.tokens(viewMode: .sourceAccurate) {
            guard token.tokenKind == .equal, token.parent?.is(AssignmentExprSyntax.self) == true,
                let target = token.parent?.parent?.as(ExprListSyntax.self)?.first
            else { continue }
            // `name` or `self.name`: another object's property of the same name is not this type's state.
            var name = target.trimmedDescription.filter { $0 != "?" && $0 != "!" }
            if name.hasPrefix("self.") { name.removeFirst(5) }
            guard published.contains(name) else { continue }
            let hops = token.ancestors.contains { ancestor in
                guard let closure = ancestor.as(ClosureExprSyntax.self) else { return false }
                if closure.hopsToMainItself { return true }
                let receiver = closure.enclosingCall?.receiverText ?? ""
                return receiver.contains("main") || receiver.contains("MainActor")
                    || closure.signature?.attributes.contains {
                        $0.as(AttributeSyntax.self)?.attributeName.trimmedDescription == "MainActor"
                    } == true
            }
            if !hops { return true }
        }
        return false
    }

    init(_ tree: SourceFileSyntax) {
        let finder = DeclarationFinder()
        finder.walk(tree)
        bindings = finder.bindings
        published = finder.published
        methods = finder.methods
        mainBoundTypes = finder.mainBoundTypes
        viewTypes = finder.viewTypes
        inheritance = finder.inheritance
        // Off-main sends and assignments are decided after the walk: the queues they name may be declared later.
        // The line table is built only for a file that has an off-main send to name.
        var converter: SourceLocationConverter?
        func line(of node: Syntax) -> Int {
            let table = converter ?? SourceLocationConverter(fileName: "", tree: tree)
            converter = table
            return node.startLocation(converter: table).line
        }
        for (name, node) in finder.sends where sentOffMain[name] == nil {
            if node.runsOffMain(self) { sentOffMain[name] = line(of: node) }
        }
        for (name, node) in finder.assignments where assignedOffMain[name] == nil && published.contains(name) {
            if node.runsOffMain(self) { assignedOffMain[name] = line(of: node) }
        }
        // Only a file with @Published properties has methods that set them.
        if !published.isEmpty {
            for (name, body) in finder.methodBodies where !mainStateMethods.contains(name) {
                if Self.setsMainState(body, published: published) { mainStateMethods.insert(name) }
            }
        }
        for (name, expression) in finder.computedPublishers {
            guard let call = expression.as(FunctionCallExprSyntax.self), call.delivery(self) != .main,
                let root = call.chainRoot
            else { continue }
            publisherAliases[name] = lastComponent(root.trimmedDescription)
        }
    }
}

private final class DeclarationFinder: SyntaxVisitor {
    var bindings: [FileDeclarations.Binding] = []
    var published: Set<String> = []
    var methods: Set<String> = []
    var mainBoundTypes: Set<String> = []
    var viewTypes: Set<String> = []
    var inheritance: [String: [String]] = [:]
    var sends: [(String, Syntax)] = []
    var assignments: [(String, Syntax)] = []
    var computedPublishers: [(String, ExprSyntax)] = []
    var methodBodies: [(String, CodeBlockSyntax)] = []
    private var variableDepth = 0

    private static let sendNames: Set<String> = ["send", "accept", "onNext"]

    override func visit(_ node: FunctionCallExprSyntax) -> SyntaxVisitorContinueKind {
        if let name = node.calledName, Self.sendNames.contains(name), let receiver = node.receiverText,
            node.closures.isEmpty
        {
            sends.append((lastComponent(receiver.filter { $0 != "?" && $0 != "!" }), Syntax(node)))
        }
        return .visitChildren
    }

    override func visit(_ node: SequenceExprSyntax) -> SyntaxVisitorContinueKind {
        let elements = node.elements
        guard elements.count == 3, let first = elements.first,
            elements.dropFirst().first?.is(AssignmentExprSyntax.self) == true
        else { return .visitChildren }
        var target = first.trimmedDescription.filter { $0 != "?" && $0 != "!" }
        // `subject.value = x` sends on a CurrentValueSubject or BehaviorRelay-like box.
        if target.hasSuffix(".value") {
            target = String(target.dropLast(6))
            sends.append((lastComponent(target), Syntax(node)))
        } else if !target.contains("(") && !target.contains("[") {
            assignments.append((lastComponent(target), Syntax(node)))
        }
        return .visitChildren
    }

    private func record(_ group: some DeclGroupSyntax) {
        guard let name = declaredTypeName(group) else { return }
        if isMainBoundDeclaration(group, declarations: nil) { mainBoundTypes.insert(name) }
        if isViewDeclaration(group, declarations: nil) { viewTypes.insert(name) }
        let inherited = group.inheritanceClause?.inheritedTypes.map { baseTypeName($0.type.trimmedDescription) } ?? []
        if !inherited.isEmpty { inheritance[name, default: []].append(contentsOf: inherited) }
    }

    override func visit(_ node: ClassDeclSyntax) -> SyntaxVisitorContinueKind {
        record(node)
        return .visitChildren
    }

    override func visit(_ node: StructDeclSyntax) -> SyntaxVisitorContinueKind {
        record(node)
        return .visitChildren
    }

    override func visit(_ node: ExtensionDeclSyntax) -> SyntaxVisitorContinueKind {
        record(node)
        return .visitChildren
    }

    override func visit(_ node: TypeAliasDeclSyntax) -> SyntaxVisitorContinueKind {
        inheritance[node.name.text, default: []].append(baseTypeName(node.initializer.value.trimmedDescription))
        return .visitChildren
    }

    override func visit(_ node: FunctionDeclSyntax) -> SyntaxVisitorContinueKind {
        let isMember = node.parent?.is(MemberBlockItemSyntax.self) == true
        let isStatic = node.modifiers.contains { $0.name.text == "static" || $0.name.text == "class" }
        if isMember && !isStatic {
            methods.insert(node.name.text)
            if let body = node.body { methodBodies.append((node.name.text, body)) }
        }
        return .visitChildren
    }

    init() { super.init(viewMode: .sourceAccurate) }

    override func visit(_ node: PatternBindingSyntax) -> SyntaxVisitorContinueKind {
        if let name = node.pattern.as(IdentifierPatternSyntax.self)?.identifier.text {
            bindings.append(
                .init(
                    name: name, value: node.initializer?.value.trimmedDescription ?? "",
                    type: node.typeAnnotation?.type.trimmedDescription ?? ""))
            if case .getter(let body) = node.accessorBlock?.accessors, body.count == 1,
                case .expr(let expression) = body.first?.item
            {
                computedPublishers.append((name, expression))
            }
        }
        return .visitChildren
    }

    override func visit(_ node: VariableDeclSyntax) -> SyntaxVisitorContinueKind {
        defer { variableDepth += 1 }
        guard variableDepth == 0,
            node.attributes.contains(where: {
                $0.as(AttributeSyntax.self)?.attributeName.trimmedDescription == "Published"
            })
        else { return .visitChildren }
        for binding in node.bindings {
            if let name = binding.pattern.as(IdentifierPatternSyntax.self)?.identifier.text { published.insert(name) }
        }
        return .visitChildren
    }

    override func visitPost(_ node: VariableDeclSyntax) {
        variableDepth -= 1
    }
}

/// Whether a call's result is kept on the object: chained into `.store(in:)` / `.disposed(by:)`, or assigned to a
/// property (`self.x = ...`, `x = ...`, not a `let` local).
package func resultIsStored(_ call: FunctionCallExprSyntax) -> Bool {
    var node = Syntax(call)
    while let parent = node.parent {
        if let member = parent.as(MemberAccessExprSyntax.self),
            let outer = member.parent?.as(FunctionCallExprSyntax.self)
        {
            if let name = outer.calledName,
                name == "store" || name == "disposed" || name == "insert" || name == "addDisposableTo"
            {
                return true
            }
            node = Syntax(outer)
            continue
        }
        if let sequence = parent.as(ExprListSyntax.self), sequence.count == 3,
            sequence.dropFirst().first?.is(AssignmentExprSyntax.self) == true,
            sequence.last.map({ Syntax($0) }) == node
        {
            return !(sequence.first?.is(DiscardAssignmentExprSyntax.self) ?? false)
        }
        if parent.is(ExprListSyntax.self) || parent.is(SequenceExprSyntax.self) || parent.is(TryExprSyntax.self) {
            node = parent
            continue
        }
        return false
    }
    return false
}
