// ui-update-off-main and ui-update-unproven-main: a subscriber that updates main-thread state from a chain that
// delivers off the main thread (proven by syntax), or that nothing in the chain brings to the main thread.

import SwiftSyntax

/// Shared by the two rules: the end of a stored subscription (`sink`, `assign`, RxSwift's `subscribe(onNext:)`,
/// `bind(onNext:)`) whose closure updates main-thread state (see ``ClosureExprSyntax/updatesMainState(mainBound:published:)``)
/// and does not hop to the main thread itself; ``reports(_:)`` decides from the chain's ``Delivery``.
package class MainDeliveryVisitor: LintVisitor {
    override package class var visitedKinds: Set<SyntaxKind> { [.functionCallExpr] }

    /// The message for a finding, or nil when the rule does not report this delivery.
    func message(for delivery: Delivery, at node: FunctionCallExprSyntax) -> String? { nil }

    /// Whether any use of `self` counts as main-thread state here: in a view or controller (every rule), or in any
    /// main-bound type (view models too: the unproven rule, which audits).
    func selfIsMainState(_ node: FunctionCallExprSyntax) -> Bool { offMainSelfIsMainState(node) }

    /// ui-update-off-main's test: in a view or controller; or in any main-bound type when the chain has
    /// `subscribe(on:)` the main queue and nothing that delivers on main, which says its author wanted the values on
    /// the main thread and used the operator that moves only the subscription (DuckDuckGo's `Tab` did).
    func offMainSelfIsMainState(_ node: FunctionCallExprSyntax) -> Bool {
        let declarations = context.declarations
        if node.inViewType(declarations) { return true }
        guard node.subscribesOnMainOnly(declarations), node.inMainBoundType(declarations) else { return false }
        return node.delivery(declarations) != .main
    }

    private static let subscriberNames: Set<String> = [
        "sink", "subscribe", "subscribeNext", "bind", "assign", "weakAssign",
    ]

    override package func visit(_ node: FunctionCallExprSyntax) -> SyntaxVisitorContinueKind {
        // Only the ends of chains go further (the type tests below walk the ancestors).
        guard let name = node.calledName, Self.subscriberNames.contains(name),
            updatesMainState(node, selfCounts: selfIsMainState(node)),
            let message = message(for: node.delivery(context.declarations), at: node)
        else { return .visitChildren }
        reportCall(node, message: message)
        return .visitChildren
    }

    /// Whether `node` ends a stored subscription whose subscriber updates main-thread state (`selfCounts`: any use
    /// of `self` does) without hopping to the main thread itself.
    func updatesMainState(_ node: FunctionCallExprSyntax, selfCounts: Bool) -> Bool {
        guard let name = node.calledName, node.receiver != nil else { return false }
        let labels = node.argumentLabels
        let declarations = context.declarations
        switch name {
        case "sink", "subscribe", "subscribeNext", "bind":
            if name == "subscribe" && labels.first == "on" { return false }
            if name == "subscribe" && !labels.isEmpty
                && !labels.contains(where: { ["onNext", "onSuccess", "onError", "onCompleted"].contains($0) })
            {
                return false
            }
            if name == "bind" && !labels.contains("onNext") { return false }
            let closures = node.closures
            guard !closures.isEmpty, resultIsStored(node), !closures.contains(where: \.hopsToMainItself) else {
                return false
            }
            return closures.contains {
                $0.updatesMainState(
                    mainBound: selfCounts, published: declarations.published,
                    mainStateMethods: declarations.mainStateMethods)
            }
        case "assign", "weakAssign":
            // `assign(to: &$x)` sets a @Published property; `assign(to:on:)` in a main-bound type sets its state.
            let intoPublished = node.argument("to")?.is(InOutExprSyntax.self) == true
            guard intoPublished || resultIsStored(node) else { return false }
            return intoPublished || selfCounts || node.inMainBoundType(declarations)
        default:
            // `drive` and the rest: a Driver delivers on the main thread.
            return false
        }
    }
}

/// `publisher.subscribe(on: background).sink { self.label.text = $0 }`, `URLSession.dataTaskPublisher(...).sink {
/// self.items = $0 }`, RxSwift's `observe(on: backgroundScheduler).subscribe(onNext: { self.tableView.reloadData() })`:
/// values reach a closure that updates main-thread state (UIKit/AppKit, `@Published` properties, a main-bound type's
/// state) on a background thread. Reported only when syntax proves the delivery is off the main thread: the nearest
/// scheduler operator names a background queue or scheduler (directly, or through a variable declared in the file),
/// the source is `dataTaskPublisher` or Core Data's save notifications, or a subject / `@Published` property that the
/// file sends or sets from work off the main thread (a global or private queue, `Task.detached`, a `Task` outside a
/// main-bound type, a URLSession completion handler).
package final class UIUpdateOffMain: MainDeliveryVisitor {
    package static let description = RuleDescription(
        id: "ui-update-off-main", severity: .warning,
        message:
            "values reach this subscriber off the main thread and it updates main-thread state (UI, @Published, a "
            + "view or controller); add .receive(on: DispatchQueue.main) (RxSwift: .observe(on: "
            + "MainScheduler.instance)) before it",
        visitor: UIUpdateOffMain.self)

    override func message(for delivery: Delivery, at node: FunctionCallExprSyntax) -> String? {
        guard case .offMain(let why) = delivery else { return nil }
        return "values reach this subscriber off the main thread (\(why)) and it updates main-thread state (UI, "
            + "@Published, a view or controller); add .receive(on: DispatchQueue.main) (RxSwift: .observe(on: "
            + "MainScheduler.instance)) before it"
    }
}

/// The same subscriber in a main-bound type (a view, a controller, an `ObservableObject`, a `@MainActor` type, a type
/// with `@Published` state) when nothing in the chain brings values to the main thread and its source is not one
/// that delivers there (RxCocoa's `rx` properties, control events, `Just`):
/// whether the source delivers on main is decided in another file, which syntax does not follow. Off by default: most
/// such chains are correct because their source happens to deliver on main; turn it on to audit a codebase.
package final class UIUpdateUnprovenMain: MainDeliveryVisitor {
    package static let description = RuleDescription(
        id: "ui-update-unproven-main", severity: .warning,
        message:
            "nothing in this chain delivers on the main thread and the subscriber updates state of a main-thread type; "
            + "unless the source is known to deliver on main, add .receive(on: DispatchQueue.main) (RxSwift: "
            + ".observe(on: MainScheduler.instance))",
        enabledByDefault: false,
        // Off by default: whether the source delivers on main is decided elsewhere (measured on real trees, see the
        // UntangleLint article).
        visitor: UIUpdateUnprovenMain.self)

    override func selfIsMainState(_ node: FunctionCallExprSyntax) -> Bool {
        node.inMainBoundType(context.declarations)
    }

    override func message(for delivery: Delivery, at node: FunctionCallExprSyntax) -> String? {
        switch delivery {
        case .main:
            return nil
        case .offMain:
            // ui-update-off-main reports this one when its stricter test of main-thread state holds.
            return updatesMainState(node, selfCounts: offMainSelfIsMainState(node)) ? nil : rule.message
        case .unknown:
            return deliversOnMain(node) ? nil : rule.message
        }
    }

    /// Sources that deliver on the main thread: RxCocoa's `rx` extensions, `objectWillChange`, control events,
    /// `Just`, main-run-loop timers, UIKit's application and keyboard notifications. (A type's own `@Published`
    /// properties are not among them: other objects set them, from any thread.)
    private func deliversOnMain(_ node: FunctionCallExprSyntax) -> Bool {
        let controlEvent = node.chainBelow.contains { call in
            call.calledName == "publisher" && call.argument("for")?.trimmedDescription.hasPrefix(".") == true
                && call.receiverText?.lowercased().contains("notificationcenter") != true
        }
        guard !controlEvent, let root = node.chainRoot else { return controlEvent }
        let text = root.trimmedDescription
        if text.contains(".rx") || text.hasPrefix("rx.") || text.contains("objectWillChange") { return true }
        return text.hasPrefix("Just(") || text.contains("Timer.publish") || text.contains("UIApplication")
            || text.contains("UIKeyboard") || text.contains("keyboardWill")
    }
}
