// rx-disposebag-reassigned-across-threads: a DisposeBag variable replaced (`bag = DisposeBag()`, the "dispose
// everything" idiom) from work that runs on another thread while other code inserts into it.

import SwiftSyntax

/// `self.disposeBag = DisposeBag()` (or `= nil` on an optional bag) inside a closure that runs on another thread (a
/// GCD dispatch off the main queue, `Task.detached`, a `Thread`, an RxSwift callback after `observe(on:)` or
/// `subscribeOn` with a scheduler that is not the main one, a time operator's scheduler), while the same file inserts
/// into that bag elsewhere (for a `static` or global bag, which every file reaches, the reassignment alone).
///
/// `DisposeBag.insert` (and so `disposed(by:)`) takes the bag's own lock: sharing one bag between threads for
/// `disposed(by:)` alone is safe and never reported. The property holding the bag is not locked: replacing it on one
/// thread while another thread reads it (for `disposed(by: self.disposeBag)`) is a data race on a class reference
/// (the reader can retain a bag the writer just freed), and a disposable inserted into the old bag at that moment is
/// disposed at once.
package final class RxDisposeBagReassigned: LintVisitor {
    package static let description = RuleDescription(
        id: "rx-disposebag-reassigned-across-threads", severity: .error,
        message:
            "DisposeBag property reassigned from work that runs on another thread while other code inserts into it (a "
            + "data race on the property, not on the bag); reassign it on the thread that owns it (observe(on: "
            + "MainScheduler.instance) first) or keep the subscriptions in a SerialDisposable/CompositeDisposable, which "
            + "lock",
        visitor: RxDisposeBagReassigned.self)

    override package class var visitedKinds: Set<SyntaxKind> { [.sourceFile] }

    override package func visit(_ node: SourceFileSyntax) -> SyntaxVisitorContinueKind {
        // Files that never name DisposeBag cannot have a finding: one substring search instead of a walk.
        guard context.source.contains("DisposeBag") else { return .skipChildren }
        let finder = BagUseFinder()
        finder.walk(node)
        for assignment in finder.assignments {
            let name = assignment.name
            guard assignment.newBag || finder.bagNames.contains(name) else { continue }
            guard let closure = offThreadClosure(around: assignment.node) else { continue }
            // A static or global bag is reachable from every file: another thread may insert into it from anywhere.
            // A property must be used outside the closure in this file for syntax to see the other side of the race.
            let global = finder.globalBagNames.contains(name) && assignment.targetsGlobal
            let closureID = closure.id
            let usedOutside = finder.uses.contains { use in
                use.name == name && use.node.id != assignment.node.id
                    && !use.node.ancestors.contains { $0.id == closureID }
            }
            if global || usedOutside { report(assignment.node) }
        }
        return .skipChildren
    }

    /// The innermost enclosing closure that decides the thread, if it runs on another thread than the one the
    /// enclosing function was called on; nil when the deciding closure runs on the main thread or nothing decides.
    private func offThreadClosure(around node: some SyntaxProtocol) -> ClosureExprSyntax? {
        for closure in node.enclosingClosures {
            guard let call = closure.enclosingCall else { continue }
            switch thread(of: call) {
            case .main: return nil
            case .other: return closure
            case .unknown: continue
            }
        }
        return nil
    }

    private enum Thread { case main, other, unknown }

    /// Where a call runs the closures passed to it, as far as syntax shows.
    private func thread(of call: FunctionCallExprSyntax) -> Thread {
        guard let name = call.calledName else { return .unknown }
        if name == "Task" && call.receiverText == nil {
            // A Task inherits its actor: in a @MainActor declaration or a UIKit/AppKit subclass (main-actor
            // isolated), it runs on the main thread. Elsewhere it runs on the global executor.
            return inheritsMainActor(call) ? .main : .other
        }
        if call.spawnsConcurrentWork {
            let receiver = call.receiverText?.lowercased() ?? ""
            return receiver.contains("main") ? .main : .other
        }
        if name == "drive" || name == "emit" { return .main }
        // RxSwift: the scheduler operator nearest below the call decides where its closures run.
        var subscribedOff = false
        for below in call.chainBelow {
            let name = below.calledName
            let label = below.argumentLabels.first
            if name == "observeOn" || (name == "observe" && label == "on") {
                return isMainScheduler(below) ? .main : .other
            }
            // Time operators (`delay`, `debounce`, `throttle`, `timeout`, `interval`, `timer`...) deliver on their
            // scheduler; `delaySubscription` only subscribes there, like `subscribeOn`.
            if let scheduler = below.argument("scheduler"), name != "delaySubscription" {
                return isMain(scheduler) ? .main : .other
            }
            if name == "asDriver" || name == "asSignal" { return .main }
            let subscribesOn = name == "subscribeOn" || (name == "subscribe" && label == "on")
            if subscribesOn, !isMainScheduler(below) { subscribedOff = true }
            if name == "delaySubscription", let scheduler = below.argument("scheduler"), !isMain(scheduler) {
                subscribedOff = true
            }
        }
        return subscribedOff ? .other : .unknown
    }

    private func isMainScheduler(_ call: FunctionCallExprSyntax) -> Bool {
        call.arguments.first.map { isMain($0.expression) } ?? false
    }

    private func isMain(_ scheduler: ExprSyntax) -> Bool {
        scheduler.trimmedDescription.lowercased().contains("main")
    }

    private func inheritsMainActor(_ node: some SyntaxProtocol) -> Bool {
        for ancestor in node.ancestors {
            if let attributes = ancestor.asProtocol(WithAttributesSyntax.self)?.attributes,
                attributes.contains(where: {
                    $0.as(AttributeSyntax.self)?.attributeName.trimmedDescription == "MainActor"
                })
            {
                return true
            }
            if let inheritance = ancestor.asProtocol(DeclGroupSyntax.self)?.inheritanceClause {
                let uiKit = inheritance.inheritedTypes.contains {
                    let type = $0.type.trimmedDescription
                    return type.hasPrefix("UI") || type.hasPrefix("NS")
                }
                if uiKit { return true }
            }
        }
        return false
    }
}

/// One walk of a file that names DisposeBag: its bag variables, the assignments to them, and the inserts.
private final class BagUseFinder: SyntaxVisitor {
    struct Assignment {
        let node: ExprSyntax
        let name: String
        /// The right side is `DisposeBag(...)`.
        let newBag: Bool
        /// The left side names the variable alone or through its type (`bag`, `Self.bag`, `Store.bag`), not `self.`.
        let targetsGlobal: Bool
    }

    struct Use {
        let node: Syntax
        let name: String
    }

    /// Variables declared as DisposeBag (by type annotation or initializer), at any depth.
    var bagNames: Set<String> = []
    /// Of those, the `static`/`class` and file-scope `var`s.
    var globalBagNames: Set<String> = []
    var assignments: [Assignment] = []
    /// `disposed(by: x)`, `x.insert(...)` and assignments: every place that reads or writes a bag variable.
    var uses: [Use] = []

    init() { super.init(viewMode: .sourceAccurate) }

    /// A script (main.swift, a playground page) runs its top-level statements in order on one thread: its file-scope
    /// variables are not shared the way a library's globals are.
    private var isScript = false

    override func visit(_ node: SourceFileSyntax) -> SyntaxVisitorContinueKind {
        isScript = node.statements.contains {
            if case .decl = $0.item { return false }
            return true
        }
        return .visitChildren
    }

    override func visit(_ node: VariableDeclSyntax) -> SyntaxVisitorContinueKind {
        let isStaticOrGlobal =
            node.modifiers.contains { $0.name.text == "static" || $0.name.text == "class" }
            || (!isScript && node.parent?.parent?.parent?.is(SourceFileSyntax.self) == true)
        for binding in node.bindings {
            guard let name = binding.pattern.as(IdentifierPatternSyntax.self)?.identifier.text else { continue }
            let type = binding.typeAnnotation?.type.trimmedDescription.filter { $0 != "?" && $0 != "!" }
            let value = binding.initializer?.value.as(FunctionCallExprSyntax.self)?.calledName
            guard type == "DisposeBag" || type == "RxSwift.DisposeBag" || value == "DisposeBag" else { continue }
            bagNames.insert(name)
            if isStaticOrGlobal && node.bindingSpecifier.text == "var" { globalBagNames.insert(name) }
        }
        return .visitChildren
    }

    override func visit(_ node: SequenceExprSyntax) -> SyntaxVisitorContinueKind {
        let elements = Array(node.elements)
        guard elements.count == 3, elements[1].is(AssignmentExprSyntax.self) else { return .visitChildren }
        let target = elements[0].trimmedDescription
        let name = bagName(target)
        let value = elements[2]
        let newBag = value.as(FunctionCallExprSyntax.self)?.calledName == "DisposeBag"
        let replaces =
            newBag || value.is(NilLiteralExprSyntax.self)
            || value.as(FunctionCallExprSyntax.self)?.calledExpression.trimmedDescription == ".init"
        guard replaces, !name.contains("("), !name.contains("[") else { return .visitChildren }
        let targetsGlobal = !target.hasPrefix("self.") && !target.hasPrefix("self?.")
        assignments.append(.init(node: ExprSyntax(node), name: name, newBag: newBag, targetsGlobal: targetsGlobal))
        uses.append(.init(node: Syntax(node), name: name))
        return .visitChildren
    }

    override func visit(_ node: FunctionCallExprSyntax) -> SyntaxVisitorContinueKind {
        if node.calledName == "disposed", let bag = node.argument("by") {
            uses.append(.init(node: Syntax(node), name: bagName(bag.trimmedDescription)))
        } else if node.calledName == "insert", let receiver = node.receiverText {
            uses.append(.init(node: Syntax(node), name: bagName(receiver)))
        }
        return .visitChildren
    }
}

/// The variable an expression names: `disposeBag` for `self?.disposeBag` or `cellBag!`.
private func bagName(_ text: String) -> String {
    lastComponent(text.filter { $0 != "?" && $0 != "!" })
}
