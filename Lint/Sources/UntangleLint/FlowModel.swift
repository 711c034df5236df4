// The light type and flow model the main-thread rules share, from syntax alone: which types are bound to the main
// thread (UIKit/AppKit views and controllers, SwiftUI views, `@MainActor` types, `ObservableObject`s and other types
// with `@Published` state), where a Combine or RxSwift chain delivers its values (the nearest scheduler operator, or a
// source that delivers off the main thread), and whether a subscriber's closure updates main-thread state.

import SwiftSyntax

/// Where a chain delivers values to its end (`sink`, `assign`, `subscribe(onNext:)`), as far as syntax shows.
package enum Delivery: Equatable {
    case main
    /// Off the main thread; the associated text says why, for the message.
    case offMain(String)
    case unknown
}

/// What a scheduler argument names.
enum SchedulerKind { case main, other, unknown }

extension FileDeclarations {
    /// What kind of scheduler `expression` names: the main queue or run loop, RxSwift's main scheduler and
    /// combine-schedulers' UIScheduler are main; global queues, queues created with a label, and RxSwift's dispatch
    /// queue schedulers (directly, or through a variable declared in the file) are other.
    func schedulerKind(_ expression: ExprSyntax) -> SchedulerKind {
        let text = expression.trimmedDescription
        if Self.isMainText(text) { return .main }
        if Self.isBackgroundValue(text) { return .other }
        let name = lastComponent(text)
        if let binding = bindings.last(where: { $0.name == name }) {
            if Self.isMainText(binding.value) { return .main }
            if Self.isBackgroundValue(binding.value) || Self.isBackgroundValue(binding.type) { return .other }
        }
        return .unknown
    }

    static func isMainText(_ text: String) -> Bool {
        text.contains("main") || text.contains("Main") || text.hasPrefix("UIScheduler")
    }

    static func isBackgroundValue(_ text: String) -> Bool {
        text.hasPrefix("DispatchQueue(") || text.hasPrefix("DispatchQueue.global") || text.hasPrefix(".global")
            || text.hasPrefix("ConcurrentDispatchQueueScheduler") || text.hasPrefix("SerialDispatchQueueScheduler")
            || text.hasPrefix("OperationQueueScheduler") || text.hasPrefix("OperationQueue()")
            || text.contains("background") || text.contains("Background")
    }
}

extension FunctionCallExprSyntax {
    /// Where the values of the chain ending at this call arrive: the scheduler operator nearest above it decides
    /// (`receive(on:)`, `observe(on:)`, a time operator's `scheduler:`, `asDriver`); failing one, a source that
    /// delivers off the main thread (`dataTaskPublisher`, Core Data save notifications, a subject or `@Published`
    /// property the file sends or sets from work off the main thread, `subscribe(on:)` a background scheduler).
    /// `includingItself`: this call is a stage of the chain too (a publisher member's chain, whose last operator may
    /// be `receive(on:)`), not its subscriber.
    package func delivery(_ declarations: FileDeclarations, includingItself: Bool = false) -> Delivery {
        var subscribedOff: String?
        let chain = includingItself ? [self] + chainBelow : chainBelow
        for call in chain {
            guard let name = call.calledName else { continue }
            let firstLabel = call.arguments.first?.label?.text
            let hopsDelivery =
                (name == "receive" && firstLabel == "on") || name == "observeOn"
                || (name == "observe" && firstLabel == "on")
            if hopsDelivery, let scheduler = call.arguments.first?.expression {
                switch declarations.schedulerKind(scheduler) {
                case .main: return .main
                case .other:
                    return .offMain("\(name)(\(firstLabel.map { $0 + ": " } ?? "")\(scheduler.trimmedDescription))")
                case .unknown: return .unknown
                }
            }
            if name == "asDriver" || name == "asSignal" { return .main }
            if (name == "subscribe" && firstLabel == "on") || name == "subscribeOn" {
                if let scheduler = call.arguments.first?.expression {
                    let written = "\(name)(\(firstLabel == "on" ? "on: " : "")\(scheduler.trimmedDescription))"
                    switch declarations.schedulerKind(scheduler) {
                    case .other: subscribedOff = subscribedOff ?? written
                    // Written for main-thread delivery, but it moves only the subscription: the values of an
                    // asynchronous source still arrive on the source's thread.
                    case .main:
                        subscribedOff = subscribedOff ?? "\(written) moves only the subscription, not the values"
                    case .unknown: break
                    }
                }
                continue
            }
            if name != "delaySubscription", let scheduler = call.argument("scheduler") {
                switch declarations.schedulerKind(scheduler) {
                case .main: return .main
                case .other: return .offMain("\(name)(scheduler: \(scheduler.trimmedDescription))")
                case .unknown: return .unknown
                }
            }
            if name == "dataTaskPublisher" || name == "downloadTaskPublisher" {
                return .offMain("URLSession's \(name) delivers on a background queue")
            }
            if name == "publisher", Self.isCoreDataSaveNotification(call) {
                return .offMain("Core Data posts this notification on the saving context's queue")
            }
        }
        // The source: a publisher method or property whose own chain (in this file or, linted together, in the one
        // file declaring it) delivers on main or off it.
        if let source = chain.last, let name = source.calledName, !frameworkSourceNames.contains(name),
            source.receiver.map(isPlainReference) ?? true
        {
            if let typed = declarations.typedDelivery(source.calledExpression, member: name) {
                if typed != .unknown { return typed }
            } else {
                switch declarations.memberDelivery(name) {
                case .main: return .main
                case .offMain(let why): return .offMain(why)
                case .unknown: break
                }
            }
        }
        if let root = chainRoot {
            let name = lastComponent(root.trimmedDescription.filter { $0 != "?" && $0 != "!" })
            if let typed = declarations.typedDelivery(root, member: name) {
                // The receiver's type is declared in the files: its facts decide, not other types' of the same name.
                if typed != .unknown { return typed }
            } else {
                let member = declarations.memberDelivery(name)
                if member != .unknown { return member }
                if let why = declarations.offMainSource(root) { return .offMain(why) }
            }
        }
        if let subscribedOff { return .offMain(subscribedOff) }
        return .unknown
    }

    /// Whether the chain has `subscribe(on:)` (or `subscribeOn`) naming the main queue or scheduler.
    func subscribesOnMainOnly(_ declarations: FileDeclarations) -> Bool {
        chainBelow.contains { call in
            let name = call.calledName
            guard (name == "subscribe" && call.arguments.first?.label?.text == "on") || name == "subscribeOn",
                let scheduler = call.arguments.first?.expression
            else { return false }
            return declarations.schedulerKind(scheduler) == .main
        }
    }

    /// `NotificationCenter.default.publisher(for: NSManagedObjectContext.didSaveObjectsNotification, object: nil)`:
    /// saves of every context, background ones included.
    private static func isCoreDataSaveNotification(_ call: FunctionCallExprSyntax) -> Bool {
        guard let name = call.argument("for")?.trimmedDescription,
            name.hasSuffix("didSaveObjectsNotification") || name.hasSuffix("NSManagedObjectContextDidSave")
                || name.hasSuffix("didChangeObjectsNotification")
                || name.hasSuffix("NSManagedObjectContextObjectsDidChange")
        else { return false }
        let object = call.argument("object")?.trimmedDescription ?? "nil"
        return object == "nil"
    }

    /// The chain's source expression: `model.$name` in `model.$name.map { }.sink { }`.
    package var chainRoot: ExprSyntax? {
        guard let last = chainBelow.last else { return receiver }
        return last.receiver ?? ExprSyntax(last)
    }
}

/// Names of Combine's and Foundation's own publishers and operators: a call of one is not the app's publisher method,
/// even when the app declares a member of that name.
private let frameworkSourceNames: Set<String> = [
    "publisher", "map", "compactMap", "filter", "flatMap", "switchToLatest", "merge", "combineLatest", "zip",
    "eraseToAnyPublisher", "removeDuplicates", "share", "debounce", "throttle", "prepend", "append", "values",
    "dataTaskPublisher", "Just", "Future", "Deferred", "CurrentValueSubject", "PassthroughSubject",
]

/// Whether `expression` names an object (`model`, `self.model`, `context.service`), not a call or a literal: the
/// receiver of a publisher method whose chain the facts know.
private func isPlainReference(_ expression: ExprSyntax) -> Bool {
    expression.is(DeclReferenceExprSyntax.self) || expression.is(MemberAccessExprSyntax.self)
        || expression.is(OptionalChainingExprSyntax.self) || expression.is(ForceUnwrapExprSyntax.self)
}

/// The type of the object `expression` reads `member` of: `PurchaseManager` for `manager.$subscription` when `manager`
/// is a property, local or parameter declared `PurchaseManager` (or initialized with it), following each component's
/// declared type across the files (`model.saved.$selected`). Nil when a step is unknown.
func resolveReceiverType(
    of expression: some SyntaxProtocol, member: String, declarations: FileDeclarations, facts: CrossFileFacts?
) -> String? {
    var components = expression.trimmedDescription.filter { $0 != "?" && $0 != "!" }.split(separator: ".").map(
        String.init)
    guard components.count >= 2, components.last.map({ $0 == member || $0 == "$" + member }) == true else {
        return nil
    }
    components.removeLast()
    guard components.allSatisfy({ $0.allSatisfy { $0.isLetter || $0.isNumber || $0 == "_" } }) else { return nil }
    let enclosing = enclosingTypeName(Syntax(expression))
    var type: String?
    let first = components.removeFirst()
    if first == "self" {
        type = enclosing
    } else if let parameter = enclosingParameterType(Syntax(expression), named: first) {
        type = parameter
    } else if let enclosing,
        let member = declarations.memberTypes["\(enclosing).\(first)"]
            ?? facts?.memberTypes["\(enclosing).\(first)"]
    {
        type = member
    } else if let binding = declarations.bindings.last(where: { $0.name == first }) {
        type = typeName(annotation: binding.type, value: binding.value)
    }
    func memberType(_ owner: String, _ name: String) -> String? {
        declarations.memberTypes["\(owner).\(name)"] ?? facts?.memberTypes["\(owner).\(name)"]
    }
    // `=App.shared.manager`: a path from a type, followed member by member (a few steps at most: no cycles).
    func resolved(_ text: String?, depth: Int = 0) -> String? {
        guard let text, text.hasPrefix("="), depth < 4 else { return text }
        let path = text.dropFirst().split(separator: ".").map(String.init)
        var current: String? = path.first
        for name in path.dropFirst() {
            guard let owner = current else { return nil }
            current = resolved(memberType(owner, name), depth: depth + 1)
        }
        return current
    }
    type = resolved(type)
    for component in components {
        guard let current = type else { return nil }
        type = resolved(memberType(current, component))
    }
    return type
}

/// The base type name of a declaration's annotation or initializer text (see ``declaredType(of:)``).
private func typeName(annotation: String, value: String) -> String? {
    if !annotation.isEmpty {
        let base = baseTypeName(annotation.filter { $0 != "?" && $0 != "!" })
        return base.first?.isUppercase == true ? base : nil
    }
    return typeOfValue(value)
}

/// The declared type of a parameter of the function, initializer or closure around `node`.
private func enclosingParameterType(_ node: Syntax, named name: String) -> String? {
    for ancestor in node.ancestors {
        let parameters: FunctionParameterListSyntax?
        if let function = ancestor.as(FunctionDeclSyntax.self) {
            parameters = function.signature.parameterClause.parameters
        } else if let initializer = ancestor.as(InitializerDeclSyntax.self) {
            parameters = initializer.signature.parameterClause.parameters
        } else {
            continue
        }
        guard let parameter = parameters?.first(where: { ($0.secondName ?? $0.firstName).text == name }) else {
            return nil
        }
        return typeName(annotation: parameter.type.trimmedDescription, value: "")
    }
    return nil
}

extension FileDeclarations {
    /// Where `root` (`manager.$subscription`, `store.changes`, `api.latest` of `api.latest()`) delivers when the type of
    /// its receiver is known and declared in the files: from the facts about that type's member, else unknown (a
    /// type the files declare that has no such fact says nothing, whatever other types declaring the name do).
    /// Nil when the receiver's type is not known: then the name alone decides.
    func typedDelivery(_ root: some SyntaxProtocol, member: String) -> Delivery? {
        guard let type = resolveReceiverType(of: root, member: member, declarations: self, facts: crossFile),
            declaredTypes.contains(type) || crossFile?.declaredTypes.contains(type) == true
        else { return nil }
        let key = "\(type).\(member)"
        if typedOnMain.contains(key) || crossFile?.typedOnMain.contains(key) == true { return .main }
        if let why = typedOffMain[key] ?? crossFile?.typedOffMain[key] { return .offMain(why) }
        return .unknown
    }

    /// Where the publisher member `name` delivers, as the chain that defines it says: in this file, or in the one file
    /// of those linted together that declares it.
    func memberDelivery(_ name: String) -> Delivery {
        if publisherOnMain.contains(name) { return .main }
        if let fact = publisherOffMain[name] {
            return .offMain("\(name) delivers off the main thread: \(fact.why) (line \(fact.line))")
        }
        if declaredMembers.contains(name) { return .unknown }
        guard let facts = crossFile else { return .unknown }
        if facts.publisherOnMain.contains(name) { return .main }
        if let fact = facts.publisherOffMain[name] { return .offMain("\(name) delivers off the main thread: \(fact)") }
        return .unknown
    }

    /// Why `root` delivers off the main thread, if the file says so: a subject sent, or a `@Published` property set,
    /// from work that runs off the main thread (directly, or through a property that erases it).
    func offMainSource(_ root: ExprSyntax) -> String? {
        var name = lastComponent(root.trimmedDescription.filter { $0 != "?" && $0 != "!" })
        if let aliased = publisherAliases[name] ?? crossFile?.publisherAliases[name] { name = aliased }
        if name.hasPrefix("$") {
            let property = String(name.dropFirst())
            if published.contains(property) {
                return assignedOffMain[property].map {
                    "@Published \(property) is set from work off the main thread (line \($0))"
                }
            }
            // Another object's @Published property: the file that declares it (when only one does) says where it
            // is set.
            return crossFile?.publishedSetOffMain[property].map {
                "@Published \(property) is set from work off the main thread (\($0))"
            }
        }
        if let line = sentOffMain[name] {
            return "\(name) is sent from work off the main thread (line \(line))"
        }
        if let place = crossFile?.sentOffMain[name] {
            return "\(name) is sent from work off the main thread (\(place))"
        }
        return nil
    }
}

extension SyntaxProtocol {
    /// Whether the innermost enclosing type (or the extended type) is bound to the main thread: a UIKit/AppKit view or
    /// controller, a SwiftUI view, a `@MainActor` type, an `ObservableObject`, a type with `@Published` properties.
    package func inMainBoundType(_ declarations: FileDeclarations) -> Bool {
        for ancestor in ancestors {
            guard let group = ancestor.asProtocol(DeclGroupSyntax.self) else { continue }
            return isMainBoundDeclaration(group, declarations: declarations)
        }
        return false
    }
}

extension SyntaxProtocol {
    /// Whether the innermost enclosing type is a view, a view controller, a cell or window, a SwiftUI view, or
    /// `@MainActor`: types whose every method runs on the main thread (view models and `ObservableObject`s often do
    /// work off it and hop to main themselves). With files linted together, a subclass of such a type declared in
    /// another file counts too.
    package func inViewType(_ declarations: FileDeclarations) -> Bool {
        for ancestor in ancestors {
            guard let group = ancestor.asProtocol(DeclGroupSyntax.self) else { continue }
            return isViewDeclaration(group, declarations: declarations)
        }
        return false
    }
}

/// Whether a type declaration or extension is a view type (see ``SyntaxProtocol/inViewType(_:)``).
func isViewDeclaration(_ group: some DeclGroupSyntax, declarations: FileDeclarations?) -> Bool {
    if group.attributes.contains(where: {
        $0.as(AttributeSyntax.self)?.attributeName.trimmedDescription == "MainActor"
    }) {
        return true
    }
    let names =
        (group.inheritanceClause?.inheritedTypes.map { $0.type.trimmedDescription } ?? [])
        + [declaredTypeName(group)].compactMap { $0 }
    if names.contains(where: isViewTypeName) { return true }
    guard let global = declarations?.crossFile?.viewTypes else { return false }
    return names.contains { global.contains(baseTypeName($0)) }
}

/// `Base` for `Module.Base<T>`: the name a type is declared with.
func baseTypeName(_ text: String) -> String {
    lastComponent(text.split(separator: "<").first.map(String.init) ?? text)
}

/// A view, view controller, cell or window name (UIKit, AppKit, SwiftUI, and the app's subclasses named like them).
func isViewTypeName(_ name: String) -> Bool {
    let base = name.split(separator: "<").first.map(String.init) ?? name
    let last = lastComponent(base)
    if last.hasSuffix("Protocol") || last.hasSuffix("Delegate") || last.hasSuffix("DataSource") { return false }
    return last == "View" || last == "UIResponder" || last == "NSResponder" || last.hasSuffix("ViewController")
        || last.hasSuffix("View") || last.hasSuffix("Cell") || last.hasSuffix("Window")
        || last.hasSuffix("HostingController") || last.hasSuffix("NavigationController")
        || (last.hasPrefix("UI") || last.hasPrefix("NS")) && last.hasSuffix("Controller")
}

/// The name a type declaration or extension declares or extends.
func declaredTypeName(_ group: some DeclGroupSyntax) -> String? {
    let syntax = Syntax(group)
    return syntax.as(ClassDeclSyntax.self)?.name.text ?? syntax.as(StructDeclSyntax.self)?.name.text
        ?? syntax.as(ActorDeclSyntax.self)?.name.text ?? syntax.as(EnumDeclSyntax.self)?.name.text
        ?? syntax.as(ExtensionDeclSyntax.self)?.extendedType.trimmedDescription
}

/// Whether a type declaration or extension is bound to the main thread (see ``SyntaxProtocol/inMainBoundType(_:)``).
func isMainBoundDeclaration(_ group: some DeclGroupSyntax, declarations: FileDeclarations?) -> Bool {
    if group.attributes.contains(where: {
        $0.as(AttributeSyntax.self)?.attributeName.trimmedDescription == "MainActor"
    }) {
        return true
    }
    let inherited = group.inheritanceClause?.inheritedTypes.map { $0.type.trimmedDescription } ?? []
    if inherited.contains(where: isMainBoundTypeName) { return true }
    if let name = declaredTypeName(group) {
        if isMainBoundTypeName(name) || declarations?.mainBoundTypes.contains(name) == true { return true }
    }
    if let global = declarations?.crossFile?.mainBoundTypes,
        (inherited + [declaredTypeName(group)].compactMap { $0 }).contains(where: { global.contains(baseTypeName($0)) })
    {
        return true
    }
    return group.memberBlock.members.contains { member in
        member.decl.as(VariableDeclSyntax.self)?.attributes.contains {
            $0.as(AttributeSyntax.self)?.attributeName.trimmedDescription == "Published"
        } == true
    }
}

/// A type name that syntax takes for a main-thread type: UIKit/AppKit views, controllers and cells (and the app's
/// subclasses named like them), SwiftUI's `View`, `ObservableObject`, view models, coordinators and presenters.
func isMainBoundTypeName(_ name: String) -> Bool {
    let base = name.split(separator: "<").first.map(String.init) ?? name
    let last = lastComponent(base)
    if last == "ObservableObject" || last == "View" || last == "UIResponder" || last == "NSResponder" { return true }
    if last.hasSuffix("Protocol") || last.hasSuffix("Delegate") || last.hasSuffix("DataSource") { return false }
    // View models drive views and coordinators present them: their state belongs to the main thread too.
    return last.hasSuffix("ViewController") || last.hasSuffix("View") || last.hasSuffix("Cell")
        || last.hasSuffix("Window") || last.hasSuffix("HostingController") || last.hasSuffix("NavigationController")
        || last.hasSuffix("ViewModel") || last.hasSuffix("ViewModelType") || last.hasSuffix("Coordinator")
        || last.hasSuffix("Presenter")
}

extension ClosureExprSyntax {
    /// Whether the closure moves its own work to the main thread (`DispatchQueue.main.async`, `MainActor.run`,
    /// `Task { @MainActor in }`, RxSwift's `MainScheduler`): then it does not need the chain to deliver on main.
    package var hopsToMainItself: Bool {
        let text = statements.description
        return text.contains(".main.async") || text.contains("MainActor") || text.contains("performAndWait")
            || text.contains("MainScheduler") || text.contains("RunLoop.main")
    }

    /// Whether the closure updates state that belongs to the main thread: in a main-bound type, any use of `self` or
    /// any assignment; elsewhere, a UIKit-style property or call (`isHidden =`, `text =`, `reloadData()`,
    /// `present(...)`), `objectWillChange.send()`, a `@Published` property of the file, or a call of one of the
    /// file's methods that sets such state without hopping to the main thread itself (`mainStateMethods`).
    package func updatesMainState(
        mainBound: Bool, published: Set<String>, mainStateMethods: Set<String> = []
    ) -> Bool {
        for token in statements.tokens(viewMode: .sourceAccurate) {
            switch token.tokenKind {
            case .keyword(.self):
                if mainBound { return true }
            case .equal where token.parent?.is(AssignmentExprSyntax.self) == true:
                if mainBound { return true }
                if let target = assignedName(before: token), uiProperties.contains(lastComponent(target)) {
                    return true
                }
                if var target = assignedName(before: token) {
                    if target.hasPrefix("self.") { target.removeFirst(5) }
                    if published.contains(target) { return true }
                }
            case .identifier(let name):
                if uiCalls.contains(name) || mainStateMethods.contains(name),
                    token.nextToken(viewMode: .sourceAccurate)?.tokenKind == .leftParen
                {
                    return true
                }
                if name == "objectWillChange" { return true }
            default:
                continue
            }
        }
        return false
    }

    /// The assignment target before `=`, without optional marks: `view.label.isHidden` in `view.label?.isHidden = x`.
    private func assignedName(before equal: TokenSyntax) -> String? {
        guard let sequence = equal.parent?.parent?.as(ExprListSyntax.self), let first = sequence.first else {
            return nil
        }
        return first.trimmedDescription.filter { $0 != "?" && $0 != "!" }
    }
}

/// Properties of UIKit/AppKit views and controls that only the main thread may set.
private let uiProperties: Set<String> = [
    "isHidden", "text", "attributedText", "title", "image", "alpha", "isEnabled", "backgroundColor", "tintColor",
    "textColor", "isUserInteractionEnabled", "frame", "constant", "isSelected", "progress", "contentOffset",
    "rightBarButtonItem", "leftBarButtonItem", "rightBarButtonItems", "titleView", "badgeValue", "isActive",
    "placeholder", "isOn", "numberOfLines", "layoutMargins",
]

/// Methods of UIKit/AppKit views and controllers that only the main thread may call.
private let uiCalls: Set<String> = [
    "reloadData", "present", "dismiss", "pushViewController", "popViewController", "setNeedsLayout",
    "layoutIfNeeded", "setNeedsDisplay", "performSegue", "beginUpdates", "endUpdates", "insertRows", "deleteRows",
    "reloadRows", "reloadSections", "performBatchUpdates", "setViewControllers", "scrollToRow", "scrollToItem",
    "becomeFirstResponder", "resignFirstResponder", "addSubview", "removeFromSuperview", "setTitle", "setImage",
    "startAnimating", "stopAnimating", "apply", "show", "navigate", "endRefreshing", "beginRefreshing",
]

/// What the files linted together tell each other: the main-bound and view types (closed over inheritance and type
/// aliases across the files); the subjects sent and `@Published` properties set off the main thread, the publisher
/// properties that erase them, and the publisher members whose chain delivers off or on the main thread, for names
/// declared in one file only (a name declared in several files could be any of them) or that every declaring file
/// says alike; and the same facts keyed `Type.member`, with the members' declared types, for receivers whose type the
/// files tell.
package struct CrossFileFacts: Sendable {
    package var mainBoundTypes: Set<String> = []
    package var viewTypes: Set<String> = []
    /// Subject name → "File.swift:line" of a send off the main thread.
    package var sentOffMain: [String: String] = [:]
    package var publisherAliases: [String: String] = [:]
    /// `@Published` property name → "File.swift:line" of an assignment from work off the main thread.
    package var publishedSetOffMain: [String: String] = [:]
    /// Publisher member (property or method) name → "why (File.swift:line)": its chain delivers off the main thread.
    package var publisherOffMain: [String: String] = [:]
    /// Publisher members whose chain delivers on the main thread.
    package var publisherOnMain: Set<String> = []
    /// The facts keyed `Type.member` (see ``FileDeclarations/typedOffMain``), with "(File.swift:line)" places.
    package var typedOffMain: [String: String] = [:]
    package var typedOnMain: Set<String> = []
    package var memberTypes: [String: String] = [:]
    package var declaredTypes: Set<String> = []

    package init(files: [(path: String, declarations: FileDeclarations)]) {
        var inheritance: [String: [String]] = [:]
        var declaredIn: [String: Int] = [:]
        for (_, declarations) in files {
            mainBoundTypes.formUnion(declarations.mainBoundTypes)
            viewTypes.formUnion(declarations.viewTypes)
            inheritance.merge(declarations.inheritance) { $0 + $1 }
            for name in Set(declarations.bindings.map(\.name)) { declaredIn[name, default: 0] += 1 }
        }
        // A type inheriting (or aliasing) a main-bound type is main-bound, whichever file declares which.
        var changed = true
        while changed {
            changed = false
            for (type, bases) in inheritance {
                if !mainBoundTypes.contains(type), bases.contains(where: mainBoundTypes.contains) {
                    mainBoundTypes.insert(type)
                    changed = true
                }
                if !viewTypes.contains(type), bases.contains(where: viewTypes.contains) {
                    viewTypes.insert(type)
                    changed = true
                }
            }
        }
        // Members (properties and methods) by the files declaring them: a fact about a name declared in one file only.
        var memberDeclaredIn: [String: Int] = [:]
        var publishedIn: [String: Int] = [:]
        var offMainMembers: [String: [String]] = [:]
        var onMainMembers: [String: Int] = [:]
        for (_, declarations) in files {
            for name in declarations.declaredMembers { memberDeclaredIn[name, default: 0] += 1 }
            for name in declarations.published { publishedIn[name, default: 0] += 1 }
        }
        for (path, declarations) in files {
            let file = path.split(separator: "/").last.map(String.init) ?? path
            for (key, why) in declarations.typedOffMain where typedOffMain[key] == nil {
                typedOffMain[key] = why.replacingOccurrences(of: "(line ", with: "(\(file):")
            }
            typedOnMain.formUnion(declarations.typedOnMain)
            memberTypes.merge(declarations.memberTypes) { first, _ in first }
            declaredTypes.formUnion(declarations.declaredTypes)
            for (name, fact) in declarations.publisherOffMain {
                offMainMembers[name, default: []].append("\(fact.why) (\(file):\(fact.line))")
            }
            for name in declarations.publisherOnMain { onMainMembers[name, default: 0] += 1 }
            for (name, line) in declarations.sentOffMain where declaredIn[name] == 1 {
                sentOffMain[name] = "\(file):\(line)"
            }
            for (name, line) in declarations.assignedOffMain where declaredIn[name] == 1 {
                publishedSetOffMain[name] = "\(file):\(line)"
            }
            for (name, subject) in declarations.publisherAliases where declaredIn[name] == 1 {
                publisherAliases[name] = subject
            }
        }
        // A member every declaring file defines alike (conformances of one protocol erasing their own subjects, all
        // sent off main) is as good as one declaration.
        for (name, facts) in offMainMembers where facts.count == memberDeclaredIn[name] {
            publisherOffMain[name] = facts.sorted()[0]
        }
        for (name, count) in onMainMembers where count == memberDeclaredIn[name] { publisherOnMain.insert(name) }
        // Another file setting a `@Published` property from work off the main thread (`model.items = x` in a
        // background queue's work): by the receiver's type when the files tell it (`manager.subscription = x`, `manager`
        // a `PurchaseManager`, sets `PurchaseManager.subscription` however many types declare a `subscription`), and by
        // the name when one file declares it `@Published`. One line table per file, built on its first such place.
        for (path, declarations) in files where !declarations.memberAssignments.isEmpty {
            let file = path.split(separator: "/").last.map(String.init) ?? path
            var converter: SourceLocationConverter?
            func place(_ node: Syntax) -> String {
                let table = converter ?? SourceLocationConverter(fileName: file, tree: node.root)
                converter = table
                return "\(file):\(table.location(for: node.positionAfterSkippingLeadingTrivia).line)"
            }
            for (name, node) in declarations.memberAssignments
            where publishedIn[name] != nil && !declarations.published.contains(name) {
                let owner = node.as(SequenceExprSyntax.self)?.elements.first.flatMap {
                    resolveReceiverType(of: $0, member: name, declarations: declarations, facts: self)
                }
                let typedOpen = owner.map { typedOffMain["\($0).$\(name)"] == nil } ?? false
                let untypedOpen =
                    publishedIn[name] == 1 && memberDeclaredIn[name] == 1 && publishedSetOffMain[name] == nil
                guard typedOpen || untypedOpen, node.runsOffMain(declarations) else { continue }
                let at = place(node)
                if untypedOpen { publishedSetOffMain[name] = at }
                if typedOpen, let owner {
                    typedOffMain["\(owner).$\(name)"] =
                        "@Published \(name) is set from work off the main thread (\(at))"
                }
            }
        }
    }
}
