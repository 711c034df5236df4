// published-stale-read: a subscriber of `object.$property` (or `object.objectWillChange`) that reads the property
// through its object, or writes to the object, while the object is still in `willSet`.

import SwiftSyntax

/// `@Published` sends the new value from the property's `willSet`: a subscriber attached directly (no
/// `receive(on:)`, no time operator between) runs before the new value is stored. So `model.$selection.sink { _ in
/// self.render(self.model.selection) }` renders the old selection, and a subscriber that sets the object's properties
/// re-enters it in the middle of its own assignment (setting the observed property there is overwritten by the outer
/// assignment when it completes). `objectWillChange` is sent before any change, so everything the subscriber reads of
/// the object is the old state.
///
/// The rule follows the subscriber's closure (or the method it names) and the methods of the enclosing type that it
/// calls, declared in the same file, three calls deep; nested closures are left out (they run later), except the
/// closures of synchronous sequence methods (`forEach`, `map`, `filter`...). What counts, for `object.$property`: a
/// read or write of `object.property` (a bare `property` inside the type's own methods when the object is `self`), a
/// method call on another `object` (which re-enters it: the method may read the property); for `objectWillChange`: a
/// read or write of one of the file's `@Published` properties of the object, a method call on another object.
/// `setNeedsStatusBarAppearanceUpdate()` is followed into the type's `preferredStatusBarStyle` and
/// `prefersStatusBarHidden` getters, which UIKit reads again within that call. The object is matched by its text
/// (`self.` and optional chaining ignored), through a method's parameter when the subscriber passes it as an argument;
/// a call is followed only when one method of the type has its name and labels (overloads differ by types syntax does
/// not know). Test code is not checked (tests assert the old value on purpose: swift-composable-architecture's
/// `testWillSet`).
package final class PublishedStaleRead: LintVisitor {
    package static let description = RuleDescription(
        id: "published-stale-read", severity: .warning,
        message:
            "the subscriber of a @Published property runs in its willSet, before the new value is stored: reading the "
            + "property through its object gives the old value, and setting it or calling the object re-enters it "
            + "mid-assignment; use the value the subscriber is passed, or defer it with "
            + "receive(on: DispatchQueue.main)",
        visitor: PublishedStaleRead.self)

    override package class var visitedKinds: Set<SyntaxKind> { [.functionCallExpr] }

    /// Operators that pass values on synchronously, in the sender's call: the subscriber still runs inside `willSet`.
    private static let synchronousOperators: Set<String> = [
        "removeDuplicates", "map", "compactMap", "filter", "dropFirst", "eraseToAnyPublisher", "handleEvents",
        "print", "tryMap", "replaceNil", "prefix", "first", "drop", "scan", "breakpoint", "mapError",
        "setFailureType", "replaceError", "assertNoFailure", "asVoid", "removeDuplicatesBy",
    ]

    override package func visit(_ node: FunctionCallExprSyntax) -> SyntaxVisitorContinueKind {
        guard node.calledName == "sink", let source = Self.source(of: node), !context.isTestCode else {
            return .visitChildren
        }
        var scanner = StaleAccessScanner(file: context.tree)
        let isLocal = Self.rootIsLocal(source.object, at: node)
        if let closure = node.argument("receiveValue")?.as(ClosureExprSyntax.self)
            ?? (node.argument("receiveValue") == nil ? node.trailingClosure : nil)
        {
            scanner.scan(
                Syntax(closure.statements), object: source.object, objectIsLocal: isLocal, inMethod: false, depth: 0)
        } else if let method = node.argument("receiveValue"), let name = Self.selfMethodName(method) {
            scanner.follow(
                method: name, labels: nil, arguments: [], object: source.object, objectIsLocal: isLocal,
                from: Syntax(node), depth: 0)
        }
        guard let hit = scanner.firstHit(property: source.property, published: context.declarations.published)
        else { return .visitChildren }
        let line = hit.node.startLocation(converter: context.converter).line
        let what: String
        switch hit.kind {
        case .read: what = "reads `\(hit.text)`, which still holds the old value"
        case .write: what = "writes `\(hit.text)` while the object is still in willSet"
        case .call: what = "calls `\(hit.text)` on the object while it is still in willSet"
        }
        reportCall(
            node,
            message:
                "the subscriber of \(source.description) runs before the new value is stored: it \(what) (line "
                + "\(line)); use the value the subscriber is passed, or defer it with receive(on: "
                + "DispatchQueue.main)")
        return .visitChildren
    }

    /// Whether the object's path starts at a parameter or a local of the function (or closure) around the sink.
    private static func rootIsLocal(_ object: String, at node: FunctionCallExprSyntax) -> Bool {
        guard let root = object.split(separator: ".").first.map(String.init) else { return false }
        for ancestor in node.ancestors {
            let scope: Syntax?
            if let function = ancestor.as(FunctionDeclSyntax.self) {
                if function.signature.parameterClause.parameters.contains(where: {
                    ($0.secondName ?? $0.firstName).text == root
                }) {
                    return true
                }
                scope = function.body.map(Syntax.init)
            } else if let initializer = ancestor.as(InitializerDeclSyntax.self) {
                if initializer.signature.parameterClause.parameters.contains(where: {
                    ($0.secondName ?? $0.firstName).text == root
                }) {
                    return true
                }
                scope = initializer.body.map(Syntax.init)
            } else if let closure = ancestor.as(ClosureExprSyntax.self) {
                if closure.signature?.parameterClause?.trimmedDescription.contains(root) == true { return true }
                continue
            } else {
                continue
            }
            guard let scope else { return false }
            return scope.tokens(viewMode: .sourceAccurate).contains {
                $0.text == root && $0.parent?.is(IdentifierPatternSyntax.self) == true
            }
        }
        return false
    }

    /// `self.handle` or `handle` passed as `receiveValue:`: the method's name.
    private static func selfMethodName(_ expr: ExprSyntax) -> String? {
        if let ref = expr.as(DeclReferenceExprSyntax.self) { return ref.baseName.text }
        if let member = expr.as(MemberAccessExprSyntax.self), member.base?.trimmedDescription == "self" {
            return member.declName.baseName.text
        }
        return nil
    }

    /// The observed object and property of a `sink` whose chain is `object.$property` (or `$property`, or
    /// `object.objectWillChange`) followed only by synchronous operators. `property` is nil for `objectWillChange`.
    private static func source(of sink: FunctionCallExprSyntax) -> (
        object: String, property: String?, description: String
    )? {
        let calls = sink.chainBelow
        guard calls.allSatisfy({ $0.calledName.map(synchronousOperators.contains) ?? false }) else { return nil }
        var expr = (calls.last ?? sink).receiver
        while let current = expr,
            let inner = current.as(OptionalChainingExprSyntax.self)?.expression
                ?? current.as(ForceUnwrapExprSyntax.self)?.expression
        {
            expr = inner
        }
        guard let head = expr else { return nil }
        let name: String
        let base: ExprSyntax?
        if let member = head.as(MemberAccessExprSyntax.self) {
            name = member.declName.baseName.text
            base = member.base
        } else if let ref = head.as(DeclReferenceExprSyntax.self) {
            name = ref.baseName.text
            base = nil
        } else {
            return nil
        }
        let object = base.map { normalizedPath($0.trimmedDescription) } ?? ""
        // A type's static publisher (`Settings.$x` is not valid; `Foo.objectWillChange` is a type's) is not an object.
        if object.first?.isUppercase == true { return nil }
        let shown = object.isEmpty ? "" : object + "."
        if name == "objectWillChange" {
            return (object, nil, "`\(shown)objectWillChange`")
        }
        // `$property`, not the anonymous `$0`.
        guard name.hasPrefix("$"), name.dropFirst().first?.isLetter == true || name.dropFirst().first == "_" else {
            return nil
        }
        return (object, String(name.dropFirst()), "`\(shown)\(name)`")
    }
}

/// `self.a?.b!` → `a.b`; `self` → "" (the enclosing object).
func normalizedPath(_ text: String) -> String {
    var path = text.filter { $0 != "?" && $0 != "!" && !$0.isWhitespace }
    if path == "self" { return "" }
    if path.hasPrefix("self.") { path.removeFirst(5) }
    return path
}

/// What the subscriber does to the observed object, found by ``StaleAccessScanner``.
struct StaleAccess {
    enum Kind { case read, write, call }
    let kind: Kind
    let text: String
    let node: Syntax
    /// The member of the object touched (`selection` for `model.selection`).
    let member: String
}

/// Scans a subscriber's statements, and the methods of its type it calls (in the same file), for uses of the
/// observed object. The methods are found from the enclosing type's member list and the file's top-level
/// extensions of that type: no walk of the file.
struct StaleAccessScanner {
    let file: SourceFileSyntax
    private(set) var hits: [StaleAccess] = []
    private var visited: Set<String> = []

    init(file: SourceFileSyntax) { self.file = file }

    /// The first hit that matters for `property`; for `objectWillChange` (nil), a read or write of one of the
    /// file's `@Published` properties (`published`), or a method call on another object.
    func firstHit(property: String?, published: Set<String>) -> StaleAccess? {
        hits.first { hit in
            guard let property else { return hit.kind == .call || published.contains(hit.member) }
            switch hit.kind {
            case .read, .write: return hit.member == property
            case .call: return true
            }
        }
    }

    /// Scans `body` for uses of `object` (a normalized path, "" for `self`), following calls of `self`'s methods.
    /// `objectIsLocal`: the path starts at a local or a parameter, which other methods know only when it is passed.
    mutating func scan(_ body: Syntax, object: String, objectIsLocal: Bool, inMethod: Bool, depth: Int) {
        let collector = AccessCollector(viewMode: .sourceAccurate)
        collector.walk(body)
        for access in collector.accesses {
            let base = normalizedPath(access.base)
            if access.isCall {
                if base == object && !object.isEmpty {
                    hits.append(StaleAccess(kind: .call, text: access.text, node: access.node, member: access.name))
                } else if base.isEmpty && access.baseIsSelfOrNone
                    && access.name == "setNeedsStatusBarAppearanceUpdate" && !objectIsLocal && depth < 3
                {
                    // UIKit asks the controller's status bar properties again within this call.
                    for name in ["preferredStatusBarStyle", "prefersStatusBarHidden"] {
                        for getter in Self.getters(named: name, around: access.node, in: file)
                        where visited.insert("\(getter.position.utf8Offset)|\(object)").inserted {
                            scan(getter, object: object, objectIsLocal: false, inMethod: true, depth: depth + 1)
                        }
                    }
                } else if base.isEmpty && access.baseIsSelfOrNone {
                    follow(
                        method: access.name, labels: access.labels, arguments: access.arguments, object: object,
                        objectIsLocal: objectIsLocal, from: access.node, depth: depth + 1)
                }
                continue
            }
            // A bare name is `self`'s property only inside a method (a closure's parameters often repeat it).
            if access.isBare && !(inMethod && object.isEmpty) { continue }
            guard base == object else { continue }
            hits.append(
                StaleAccess(
                    kind: access.isWrite ? .write : .read, text: access.text, node: access.node, member: access.name))
        }
    }

    /// Follows a call of a method of the enclosing type, declared in this file: the object is tracked into the
    /// method under its own name when it is a property path of `self`, under the parameter's name when passed.
    mutating func follow(
        method name: String, labels: [String]?, arguments: [String], object: String, objectIsLocal: Bool,
        from origin: Syntax, depth: Int
    ) {
        guard depth <= 3 else { return }
        let candidates = Self.methods(named: name, around: origin, in: file).filter { function in
            guard let labels else { return true }
            return labels
                == function.signature.parameterClause.parameters.map {
                    $0.firstName.text == "_" ? "" : $0.firstName.text
                }
        }
        // Overloads with the same labels differ by their parameters' types, which syntax does not know: follow a
        // call only when it names one method.
        guard candidates.count == 1, let function = candidates.first else { return }
        do {
            let parameters = Array(function.signature.parameterClause.parameters)
            // Passed as an argument: the parameter's name stands for the object inside the method.
            var inner: String? = nil
            var innerIsLocal = false
            if !object.isEmpty, let index = arguments.firstIndex(of: object), index < parameters.count {
                inner = (parameters[index].secondName ?? parameters[index].firstName).text
                innerIsLocal = true
            } else if !objectIsLocal {
                // A path from `self`: still valid in the method unless a parameter shadows its root.
                let root = object.split(separator: ".").first.map(String.init) ?? ""
                let shadowed = parameters.contains { ($0.secondName ?? $0.firstName).text == root }
                inner = shadowed && !root.isEmpty ? nil : object
            }
            guard let inner, let body = function.body else { return }
            let key = "\(function.position.utf8Offset)|\(inner)"
            guard !visited.contains(key) else { return }
            visited.insert(key)
            scan(Syntax(body.statements), object: inner, objectIsLocal: innerIsLocal, inMethod: true, depth: depth)
        }
    }

    /// The methods named `name` of the type enclosing `node`: its members and those of the file's extensions of it.
    static func methods(named name: String, around node: Syntax, in file: SourceFileSyntax) -> [FunctionDeclSyntax] {
        members(around: node, in: file).compactMap {
            $0.as(FunctionDeclSyntax.self).flatMap { $0.name.text == name ? $0 : nil }
        }
    }

    /// The getters of the computed properties named `name` of the type enclosing `node` (as
    /// ``methods(named:around:in:)``).
    static func getters(named name: String, around node: Syntax, in file: SourceFileSyntax) -> [Syntax] {
        members(around: node, in: file).compactMap { decl -> Syntax? in
            guard let variable = decl.as(VariableDeclSyntax.self), variable.bindings.count == 1,
                let binding = variable.bindings.first,
                binding.pattern.as(IdentifierPatternSyntax.self)?.identifier.text == name,
                let accessors = binding.accessorBlock?.accessors
            else { return nil }
            if let body = accessors.as(CodeBlockItemListSyntax.self) { return Syntax(body) }
            let getter = accessors.as(AccessorDeclListSyntax.self)?.first { $0.accessorSpecifier.text == "get" }
            return getter?.body.map { Syntax($0.statements) }
        }
    }

    /// The member declarations of the type enclosing `node` and of the file's top-level extensions of it: no walk.
    private static func members(around node: Syntax, in file: SourceFileSyntax) -> [DeclSyntax] {
        var typeName: String?
        var ownMembers: MemberBlockItemListSyntax?
        for ancestor in node.ancestors {
            if let decl = ancestor.asProtocol(DeclGroupSyntax.self) {
                ownMembers = decl.memberBlock.members
                typeName = Self.name(of: ancestor)
                break
            }
        }
        var result: [DeclSyntax] = ownMembers.map { $0.map(\.decl) } ?? []
        guard let typeName else { return result }
        for statement in file.statements {
            guard let decl = statement.item.asProtocol(DeclGroupSyntax.self),
                Self.name(of: Syntax(statement.item)) == typeName,
                decl.memberBlock.members != ownMembers
            else { continue }
            result += decl.memberBlock.members.map(\.decl)
        }
        return result
    }

    private static func name(of node: Syntax) -> String? {
        if let decl = node.as(ClassDeclSyntax.self) { return decl.name.text }
        if let decl = node.as(StructDeclSyntax.self) { return decl.name.text }
        if let decl = node.as(ActorDeclSyntax.self) { return decl.name.text }
        if let decl = node.as(EnumDeclSyntax.self) { return decl.name.text }
        if let decl = node.as(ExtensionDeclSyntax.self) { return decl.extendedType.trimmedDescription }
        return nil
    }
}

/// One use of a member in a body: `base.name` read, written or called (`base` "" for a bare name or `self.name`).
private struct MemberUse {
    let base: String
    let baseIsSelfOrNone: Bool
    /// A bare name (`selection`, no base): `self`'s member unless a local shadows it.
    var isBare = false
    let name: String
    let isCall: Bool
    let isWrite: Bool
    let labels: [String]
    let arguments: [String]
    let text: String
    let node: Syntax
}

/// Collects member uses outside nested closures (those run later), except the closures of synchronous sequence
/// methods.
private final class AccessCollector: SyntaxVisitor {
    var accesses: [MemberUse] = []
    private static let synchronousClosureCalls: Set<String> = [
        "forEach", "map", "compactMap", "flatMap", "filter", "first", "contains", "allSatisfy", "reduce", "sorted",
        "min", "max", "firstIndex", "lastIndex", "removeAll", "sort",
    ]

    override func visit(_ node: ClosureExprSyntax) -> SyntaxVisitorContinueKind {
        guard let call = node.enclosingCall, let name = call.calledName,
            Self.synchronousClosureCalls.contains(name), call.receiver != nil
        else { return .skipChildren }
        return .visitChildren
    }

    override func visit(_ node: FunctionDeclSyntax) -> SyntaxVisitorContinueKind { .skipChildren }

    override func visit(_ node: FunctionCallExprSyntax) -> SyntaxVisitorContinueKind {
        let labels = node.argumentLabels
        let arguments = node.arguments.map { normalizedPath($0.expression.trimmedDescription) }
        if let member = node.calledExpression.as(MemberAccessExprSyntax.self), let base = member.base {
            let baseText = base.trimmedDescription
            accesses.append(
                MemberUse(
                    base: baseText, baseIsSelfOrNone: normalizedPath(baseText).isEmpty,
                    name: member.declName.baseName.text, isCall: true, isWrite: false, labels: labels,
                    arguments: arguments, text: node.calledExpression.trimmedDescription + "(...)", node: Syntax(node)))
        } else if let ref = node.calledExpression.as(DeclReferenceExprSyntax.self),
            ref.baseName.text.first?.isLowercase == true
        {
            accesses.append(
                MemberUse(
                    base: "", baseIsSelfOrNone: true, name: ref.baseName.text, isCall: true, isWrite: false,
                    labels: labels, arguments: arguments, text: ref.baseName.text + "(...)", node: Syntax(node)))
        }
        return .visitChildren
    }

    override func visit(_ node: DeclReferenceExprSyntax) -> SyntaxVisitorContinueKind {
        // Only plain names that are not a member's name, a call's name or an argument label.
        guard case .identifier = node.baseName.tokenKind, node.argumentNames == nil else { return .visitChildren }
        if let parent = node.parent {
            if let member = parent.as(MemberAccessExprSyntax.self), member.declName.id == node.id {
                return .visitChildren
            }
            if let call = parent.as(FunctionCallExprSyntax.self), call.calledExpression.id == node.id {
                return .visitChildren
            }
        }
        var use = MemberUse(
            base: "", baseIsSelfOrNone: true, name: node.baseName.text, isCall: false,
            isWrite: Self.isAssigned(Syntax(node)), labels: [], arguments: [], text: node.baseName.text,
            node: Syntax(node))
        use.isBare = true
        accesses.append(use)
        return .visitChildren
    }

    override func visit(_ node: MemberAccessExprSyntax) -> SyntaxVisitorContinueKind {
        guard let base = node.base else { return .visitChildren }
        // The called member of a call is recorded with the call.
        if let call = node.parent?.as(FunctionCallExprSyntax.self), call.calledExpression.id == node.id {
            return .visitChildren
        }
        let baseText = base.trimmedDescription
        accesses.append(
            MemberUse(
                base: baseText, baseIsSelfOrNone: normalizedPath(baseText).isEmpty,
                name: node.declName.baseName.text, isCall: false, isWrite: Self.isAssigned(Syntax(node)), labels: [],
                arguments: [], text: normalizedPath(node.trimmedDescription), node: Syntax(node)))
        return .visitChildren
    }

    /// Whether `node` (possibly behind `?`/`!`) is the left side of an assignment.
    private static func isAssigned(_ node: Syntax) -> Bool {
        var current = node
        while let parent = current.parent,
            parent.is(OptionalChainingExprSyntax.self) || parent.is(ForceUnwrapExprSyntax.self)
        {
            current = parent
        }
        guard let list = current.parent?.as(ExprListSyntax.self), list.first.map({ Syntax($0) }) == current,
            list.count >= 3
        else { return false }
        let op = list.dropFirst().first
        if op?.is(AssignmentExprSyntax.self) == true { return true }
        if let binary = op?.as(BinaryOperatorExprSyntax.self) {
            return ["+=", "-=", "*=", "/=", "|=", "&="].contains(binary.operator.text)
        }
        return false
    }
}
