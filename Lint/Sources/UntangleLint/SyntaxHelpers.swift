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
    /// Publisher properties and methods whose chain, as the file writes it, delivers off the main thread (a
    /// `dataTaskPublisher`, `subscribe(on:)` or `receive(on:)` a background queue, a subject the file sends off main):
    /// name → the line of the chain and why.
    package var publisherOffMain: [String: (line: Int, why: String)] = [:]
    /// Publisher properties and methods whose chain ends with `receive(on:)` the main queue (or another operator that
    /// delivers on main).
    package var publisherOnMain: Set<String> = []
    /// The file's methods that run off the main thread: called from work off the main thread (a background queue, a
    /// detached `Task`, a sink of a chain that delivers off main), or from such a method, in this file: name → the
    /// line of the first such call.
    package var methodsOffMain: [String: Int] = [:]
    /// Assignments to another object's property (`model.items = x`), kept for the files linted together: whether one
    /// sets a `@Published` property declared in another file off the main thread is decided once that is known.
    var memberAssignments: [(name: String, node: Syntax)] = []
    /// The names the file declares as members (properties and methods), protocol requirements left out: a fact about
    /// a name is trusted across files only when one file declares it.
    package var declaredMembers: Set<String> = []
    /// The same facts keyed by the type that declares the member, `Type.member`: what a chain whose receiver's type
    /// the files tell (`manager.$subscription` with `let manager: PurchaseManager`) reads, whoever else declares the
    /// name. `assignedOffMain`, `sentOffMain`, `publisherOffMain` (as "why (line N)") and `publisherOnMain`.
    package var typedOffMain: [String: String] = [:]
    package var typedOnMain: Set<String> = []
    /// `Type.member` → the member's declared type (`var list: BookmarkList` gives `BookmarkList`), and the types the
    /// file declares: to follow `model.items.$selected` from type to type.
    package var memberTypes: [String: String] = [:]
    package var declaredTypes: Set<String> = []

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
        declaredMembers = finder.declaredMembers
        memberAssignments = finder.memberAssignments
        // Which of the file's methods run off the main thread: those called from work off main, then, along the
        // calls their bodies make (outside closures that hop to main), the methods they call, to a fixed point.
        if !finder.methodCalls.isEmpty {
            for (name, node) in finder.methodCalls where methodsOffMain[name] == nil && methods.contains(name) {
                if !finder.mainActorMethods.contains(name), node.runsOffMain(self) {
                    methodsOffMain[name] = line(of: node)
                }
            }
            var pending = Array(methodsOffMain.keys)
            let callsByCaller = Dictionary(grouping: finder.methodCalls.filter { methods.contains($0.0) }) {
                $0.1.enclosingFunction?.name.text ?? ""
            }
            while let caller = pending.popLast() {
                for (callee, node) in callsByCaller[caller] ?? []
                where methodsOffMain[callee] == nil && !finder.mainActorMethods.contains(callee)
                    && node.enclosingClosures.isEmpty
                {
                    methodsOffMain[callee] = line(of: node)
                    pending.append(callee)
                }
            }
        }
        // A send or an assignment runs off main when its own closures say so, or when it is made directly in the body
        // of a method that runs off main.
        func offMain(_ node: Syntax) -> Bool {
            if node.runsOffMain(self) { return true }
            guard !methodsOffMain.isEmpty, node.enclosingClosures.isEmpty,
                let function = node.enclosingFunction
            else { return false }
            return methodsOffMain[function.name.text] != nil
        }
        for (name, node) in finder.sends {
            let type = enclosingTypeName(node)
            guard sentOffMain[name] == nil || (type != nil && typedOffMain["\(type!).\(name)"] == nil) else { continue }
            if offMain(node) {
                let at = line(of: node)
                if sentOffMain[name] == nil { sentOffMain[name] = at }
                if let type {
                    typedOffMain["\(type).\(name)"] = "\(name) is sent from work off the main thread (line \(at))"
                }
            }
        }
        for (name, node) in finder.assignments where published.contains(name) {
            let type = enclosingTypeName(node)
            guard assignedOffMain[name] == nil || (type != nil && typedOffMain["\(type!).$\(name)"] == nil) else {
                continue
            }
            if offMain(node) {
                let at = line(of: node)
                if assignedOffMain[name] == nil { assignedOffMain[name] = at }
                if let type {
                    typedOffMain["\(type).$\(name)"] =
                        "@Published \(name) is set from work off the main thread (line \(at))"
                }
            }
        }
        memberTypes = finder.memberTypes
        declaredTypes = finder.declaredTypes
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
        // Where each publisher member's chain delivers, for the chains that read it (in this file and, linted
        // together, in the others). Only chains: a member that is a bare subject or property is an alias above.
        for (name, expression) in finder.computedPublishers + finder.publisherMembers {
            guard let call = expression.as(FunctionCallExprSyntax.self), call.calledName != nil,
                publisherOffMain[name] == nil, !publisherOnMain.contains(name)
            else { continue }
            let type = enclosingTypeName(Syntax(call))
            switch call.delivery(self, includingItself: true) {
            case .main:
                publisherOnMain.insert(name)
                if let type { typedOnMain.insert("\(type).\(name)") }
            case .offMain(let why):
                let at = line(of: Syntax(call))
                publisherOffMain[name] = (at, why)
                if let type {
                    typedOffMain["\(type).\(name)"] = "\(name) delivers off the main thread: \(why) (line \(at))"
                }
            case .unknown: continue
            }
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
    /// Methods that return a chain (`func items() -> AnyPublisher<...> { session.dataTaskPublisher(...)... }`), and
    /// stored properties initialized with one: name → the chain.
    var publisherMembers: [(String, ExprSyntax)] = []
    /// Calls of a method by its plain name or through `self`: callee → the call.
    var methodCalls: [(String, Syntax)] = []
    /// Methods marked `@MainActor` (or declared in a `@MainActor` type): a call from off main hops to main.
    var mainActorMethods: Set<String> = []
    var memberAssignments: [(name: String, node: Syntax)] = []
    var declaredMembers: Set<String> = []
    var memberTypes: [String: String] = [:]
    var declaredTypes: Set<String> = []
    private var variableDepth = 0
    private var protocolDepth = 0

    private static let sendNames: Set<String> = ["send", "accept", "onNext"]

    override func visit(_ node: FunctionCallExprSyntax) -> SyntaxVisitorContinueKind {
        if let name = node.calledName, Self.sendNames.contains(name), let receiver = node.receiverText,
            node.closures.isEmpty
        {
            sends.append((lastComponent(receiver.filter { $0 != "?" && $0 != "!" }), Syntax(node)))
        }
        if let name = node.calledName {
            // `f()`, `self.f()`, `self?.f()`: by the receiver's syntax, without building its text for every call.
            var receiver = node.receiver
            if let optional = receiver?.as(OptionalChainingExprSyntax.self) { receiver = optional.expression }
            if let forced = receiver?.as(ForceUnwrapExprSyntax.self) { receiver = forced.expression }
            if receiver == nil || receiver?.as(DeclReferenceExprSyntax.self)?.baseName.tokenKind == .keyword(.self) {
                // `await f()` may hop to the callee's actor: not a call that runs the callee here.
                if node.parent?.is(AwaitExprSyntax.self) != true { methodCalls.append((name, Syntax(node))) }
            }
        }
        return .visitChildren
    }

    override func visit(_ node: ProtocolDeclSyntax) -> SyntaxVisitorContinueKind {
        protocolDepth += 1
        return .visitChildren
    }

    override func visitPost(_ node: ProtocolDeclSyntax) {
        protocolDepth -= 1
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
            if target.contains("."), !target.hasPrefix("self.") {
                memberAssignments.append((lastComponent(target), Syntax(node)))
            }
        }
        return .visitChildren
    }

    /// The types around the node being visited, innermost last, and whether each is `@MainActor`: kept as the walk
    /// enters and leaves them, so that a member asks no ancestors.
    private var typeStack: [(name: String, mainActor: Bool)] = []

    private func enter(_ group: some DeclGroupSyntax) {
        let mainActor = group.attributes.contains {
            $0.as(AttributeSyntax.self)?.attributeName.trimmedDescription == "MainActor"
        }
        typeStack.append((declaredTypeName(group).map(baseTypeName) ?? "", mainActor))
    }

    override func visitPost(_ node: ClassDeclSyntax) { typeStack.removeLast() }
    override func visitPost(_ node: StructDeclSyntax) { typeStack.removeLast() }
    override func visitPost(_ node: ExtensionDeclSyntax) { typeStack.removeLast() }
    override func visitPost(_ node: EnumDeclSyntax) { typeStack.removeLast() }
    override func visitPost(_ node: ActorDeclSyntax) { typeStack.removeLast() }

    override func visit(_ node: EnumDeclSyntax) -> SyntaxVisitorContinueKind {
        enter(node)
        return .visitChildren
    }

    override func visit(_ node: ActorDeclSyntax) -> SyntaxVisitorContinueKind {
        enter(node)
        return .visitChildren
    }

    private func record(_ group: some DeclGroupSyntax) {
        enter(group)
        guard let name = declaredTypeName(group) else { return }
        declaredTypes.insert(baseTypeName(name))
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
        if isMember && protocolDepth == 0 { declaredMembers.insert(node.name.text) }
        let mainActor = { (attributes: AttributeListSyntax) in
            attributes.contains { $0.as(AttributeSyntax.self)?.attributeName.trimmedDescription == "MainActor" }
        }
        if mainActor(node.attributes) || typeStack.contains(where: \.mainActor) {
            mainActorMethods.insert(node.name.text)
        }
        // A method returning a publisher whose body is its chain: one expression, or one `return`.
        if isMember, node.signature.returnClause != nil, let statements = node.body?.statements,
            statements.count == 1, let item = statements.first?.item
        {
            if case .expr(let expression) = item {
                publisherMembers.append((node.name.text, expression))
            } else if let returned = item.as(ReturnStmtSyntax.self)?.expression {
                publisherMembers.append((node.name.text, returned))
            }
        }
        return .visitChildren
    }

    init() { super.init(viewMode: .sourceAccurate) }

    override func visit(_ node: PatternBindingSyntax) -> SyntaxVisitorContinueKind {
        if let name = node.pattern.as(IdentifierPatternSyntax.self)?.identifier.text {
            // Protocol requirements declare no value: leaving them out, a property declared in a protocol and one
            // conforming type is still declared once.
            if protocolDepth > 0 { return .visitChildren }
            if node.parent?.parent?.parent?.is(MemberBlockItemSyntax.self) == true {
                declaredMembers.insert(name)
                if let owner = typeStack.last?.name, !owner.isEmpty, let type = declaredType(of: node) {
                    memberTypes["\(owner).\(name)"] = type
                }
                // A chain (`loader.subscribe(on: queue).share()`), not a plain initializer (`Subject()`).
                if let value = node.initializer?.value, value.as(FunctionCallExprSyntax.self)?.receiver != nil {
                    publisherMembers.append((name, value))
                }
            }
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
                // `@Published` and the apps' own wrappers named like it (`@PostPublished`, `@DistinctPublished`).
                $0.as(AttributeSyntax.self)?.attributeName.trimmedDescription.hasSuffix("Published") == true
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

/// The name of the innermost type declaration or extension around `node` (`Base` for `extension Module.Base`).
func enclosingTypeName(_ node: Syntax) -> String? {
    for ancestor in node.ancestors {
        guard let group = ancestor.asProtocol(DeclGroupSyntax.self) else { continue }
        return declaredTypeName(group).map(baseTypeName)
    }
    return nil
}

/// The type a binding declares, as a base name: its annotation without optionals (`Manager` for `Manager?`), or the
/// type it is initialized with (`Manager(...)`, `Manager.shared`).
func declaredType(of binding: PatternBindingSyntax) -> String? {
    if let annotation = binding.typeAnnotation?.type.trimmedDescription {
        let base = baseTypeName(annotation.filter { $0 != "?" && $0 != "!" })
        return base.first?.isUppercase == true ? base : nil
    }
    guard let value = binding.initializer?.value else { return nil }
    return typeOfValue(value.trimmedDescription)
}

/// The type a value's text names: `Manager` for `Manager(...)` or `Manager<T>(...)`; for a path of names from a type,
/// `App.shared.manager`, the path itself after `=`, which ``resolveReceiverType(of:member:declarations:facts:)``
/// follows through the members' declared types once every file's are known.
func typeOfValue(_ text: String) -> String? {
    guard text.first?.isUppercase == true else { return nil }
    let head = String(text.prefix { $0 != "(" && $0 != "." && $0 != "<" })
    let rest = text.dropFirst(head.count)
    if rest.isEmpty || rest.first == "(" || rest.first == "<" { return head }
    let isPath = rest.allSatisfy { $0.isLetter || $0.isNumber || $0 == "_" || $0 == "." }
    return isPath ? "=" + text : nil
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
