// cancellable-set-from-closure: a `Set<AnyCancellable>` (or array) stored into from work that runs on another thread.

import SwiftSyntax

/// `store(in: &set)`, `set.insert(...)` or `set.append(...)` inside work that runs on another thread: a dispatched
/// closure, a `Task` or a `Thread`, work handed to a queue (`operationQueue.run { }`: a receiver named like a queue,
/// `sync` excepted); the closure of a chain that delivers off the main thread (`sink` after `receive(on:)` or a time
/// operator on a background queue, a source that delivers off main); and, in an `actor`, the closure of any chain or
/// callback (it runs on the publisher's thread, not on the actor). Two threads mutate one non-thread-safe collection.
/// The fix is `CancelBag` (`store(in: bag)`, no `inout`).
package final class CancellableSetFromClosure: LintVisitor {
    package static let description = RuleDescription(
        id: "cancellable-set-from-closure", severity: .error,
        message:
            "AnyCancellable stored into a shared collection from work that runs on another thread (a data race on the "
            + "Set); use UntangleExtras' CancelBag (`store(in: bag)`) or store on the thread that owns the set",
        visitor: CancellableSetFromClosure.self)

    private static let collectionWords = ["cancellable", "subscription", "bag"]

    override package class var visitedKinds: Set<SyntaxKind> { [.functionCallExpr] }

    override package func visit(_ node: FunctionCallExprSyntax) -> SyntaxVisitorContinueKind {
        guard let name = node.calledName, let target = storedCollection(node, name: name) else { return .visitChildren }
        guard node.enclosingClosures.contains(where: runsOnAnotherThread) else { return .visitChildren }
        // Stored under a lock (`lock.lock()` before it, `lock.withLock { }` around it): the set is guarded.
        if node.isUnderLock { return .visitChildren }
        reportCall(node, edits: cancelBagFix(target: target))
        return .visitChildren
    }

    /// Whether a closure's work runs on a thread other than the one that owns the file's collections.
    private func runsOnAnotherThread(_ closure: ClosureExprSyntax) -> Bool {
        guard let call = closure.enclosingCall, let name = call.calledName else { return false }
        if call.spawnsConcurrentWork { return true }
        // Work handed to a queue by a method of its own (`operationQueue.run(title:) { }`); `sync` is a lock.
        if name != "sync", name != "asyncAndWait", let receiver = call.receiverText.map(lastComponent),
            receiver.lowercased().hasSuffix("queue"), !receiver.lowercased().contains("main")
        {
            return true
        }
        guard Self.chainClosureNames.contains(name), call.receiver != nil else { return false }
        if case .offMain = call.delivery(context.declarations) { return true }
        // An actor's stored collection, from a closure a publisher calls on its own thread.
        return closure.ancestors.contains { $0.is(ActorDeclSyntax.self) }
    }

    /// Subscribers and operators whose closures run on the thread the chain delivers on.
    private static let chainClosureNames: Set<String> = [
        "sink", "handleEvents", "map", "flatMap", "compactMap", "filter", "tryMap", "scan", "subscribe", "bind",
        "drive",
    ]

    /// The collection's name if this call stores a cancellable into one.
    private func storedCollection(_ node: FunctionCallExprSyntax, name: String) -> String? {
        if name == "store", let inOut = node.argument("in")?.as(InOutExprSyntax.self) {
            return lastComponent(inOut.expression.trimmedDescription)
        }
        if name == "insert" || name == "append", let receiver = node.receiverText {
            let last = lastComponent(receiver)
            if Self.collectionWords.contains(where: { last.lowercased().contains($0) }) && !last.contains("(") {
                return last
            }
        }
        return nil
    }

    /// The mechanical fix: `var name = Set<AnyCancellable>()` becomes `let name = CancelBag()` and every
    /// `store(in: &name)` becomes `store(in: name)`, when the declaration is in this file and the set is used no
    /// other way than `store(in:)`, `insert` and `removeAll()` (which becomes `cancel()`).
    private func cancelBagFix(target: String) -> [Edit] {
        let finder = CancelBagFixFinder(target: target)
        finder.walk(context.tree)
        guard let declaration = finder.declaration, !finder.otherUse else { return [] }
        return [declaration] + finder.edits
    }
}

private final class CancelBagFixFinder: SyntaxVisitor {
    let target: String
    var declaration: Edit?
    var edits: [Edit] = []
    var otherUse = false

    init(target: String) {
        self.target = target
        super.init(viewMode: .sourceAccurate)
    }

    override func visit(_ node: VariableDeclSyntax) -> SyntaxVisitorContinueKind {
        guard node.bindings.count == 1, let binding = node.bindings.first,
            binding.pattern.as(IdentifierPatternSyntax.self)?.identifier.text == target
        else { return .visitChildren }
        let type = binding.typeAnnotation?.type.trimmedDescription.replacingSpaces()
        let value = binding.initializer?.value.trimmedDescription.replacingSpaces()
        let isSet =
            (type == "Set<AnyCancellable>" && (value == "[]" || value == "Set<AnyCancellable>()" || value == ".init()"))
            || (type == nil && value == "Set<AnyCancellable>()")
        guard isSet, node.bindingSpecifier.text == "var" else { return .skipChildren }
        let start = node.bindingSpecifier.positionAfterSkippingLeadingTrivia.utf8Offset
        let end = binding.endPositionBeforeTrailingTrivia.utf8Offset
        declaration = Edit(start: start, end: end, replacement: "let \(target) = CancelBag()")
        return .skipChildren
    }

    override func visit(_ node: InOutExprSyntax) -> SyntaxVisitorContinueKind {
        guard lastComponent(node.expression.trimmedDescription) == target else { return .visitChildren }
        let isStore =
            node.parent?.as(LabeledExprSyntax.self)?.label?.text == "in"
            && node.parent?.parent?.parent?.as(FunctionCallExprSyntax.self)?.calledName == "store"
        if isStore {
            edits.append(
                Edit(
                    start: node.ampersand.positionAfterSkippingLeadingTrivia.utf8Offset,
                    end: node.ampersand.endPositionBeforeTrailingTrivia.utf8Offset, replacement: ""))
        } else {
            otherUse = true
        }
        return .visitChildren
    }

    override func visit(_ node: MemberAccessExprSyntax) -> SyntaxVisitorContinueKind {
        guard let base = node.base, lastComponent(base.trimmedDescription) == target else { return .visitChildren }
        switch node.declName.baseName.text {
        case "insert":
            break
        case "removeAll":
            edits.append(
                Edit(
                    start: node.declName.positionAfterSkippingLeadingTrivia.utf8Offset,
                    end: node.declName.endPositionBeforeTrailingTrivia.utf8Offset, replacement: "cancel"))
        default:
            otherUse = true
        }
        return .visitChildren
    }
}

extension String {
    func replacingSpaces() -> String { filter { $0 != " " } }
}
