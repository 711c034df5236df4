// Linting one file: parse once, run every enabled rule's visitor, drop what inline comments disable, and apply
// mechanical fixes (only when the result still parses).

import Foundation
import SwiftParser
import SwiftSyntax
import UntangleSync

/// The rules to run and their severities, after the configuration.
package struct RuleSet: Sendable {
    package var rules: [RuleDescription]
    package var severities: [String: Severity] = [:]

    package init(rules: [RuleDescription] = Rules.all.filter(\.enabledByDefault), severities: [String: Severity] = [:])
    {
        self.rules = rules
        self.severities = severities
    }
}

/// Lints Swift source text.
package enum Linter {
    /// The findings in `source`, sorted by position, after inline `untangle:disable` comments.
    package static func lint(source: String, path: String, rules: RuleSet = RuleSet()) -> [Finding] {
        lint(context: FileContext(path: path, source: source), rules: rules)
    }

    /// The findings in a parsed file (to which ``FileContext/attach(_:)`` may have given the facts of the files
    /// linted with it), sorted by position, after inline `untangle:disable` comments.
    package static func lint(context: FileContext, rules: RuleSet = RuleSet()) -> [Finding] {
        let visitors = rules.rules.map { $0.visitor.init(context: context, rule: $0) }
        CombinedWalk(visitors).walk(context.tree)
        return finish(context, rules: rules)
    }

    /// Lints files together: each file's declarations first (in parallel), then the facts they tell each other
    /// (``CrossFileFacts``), then each file's walk with those facts. `sources` are (path, text) pairs; the result is
    /// in the same order.
    package static func lint(together sources: [(path: String, source: String)], rules: RuleSet = RuleSet())
        -> [[Finding]]
    {
        let contexts = LockedBox([FileContext?](repeating: nil, count: sources.count))
        DispatchQueue.concurrentPerform(iterations: sources.count) { index in
            let context = FileContext(path: sources[index].path, source: sources[index].source)
            _ = context.declarations
            contexts.withLock { $0[index] = context }
        }
        let parsed = contexts.withLock { $0.compactMap { $0 } }
        let facts = CrossFileFacts(files: parsed.map { ($0.path, $0.declarations) })
        let results = LockedBox([[Finding]](repeating: [], count: parsed.count))
        DispatchQueue.concurrentPerform(iterations: parsed.count) { index in
            parsed[index].attach(facts)
            let findings = lint(context: parsed[index], rules: rules)
            results.withLock { $0[index] = findings }
        }
        return results.withLock { $0 }
    }

    /// The findings of each rule walking the file on its own, as the linter did before the combined walk: what
    /// the tests compare the combined walk with (a rule missing a kind in `visitedKinds` shows there).
    package static func lintSeparately(source: String, path: String, rules: RuleSet = RuleSet()) -> [Finding] {
        let context = FileContext(path: path, source: source)
        for rule in rules.rules {
            rule.visitor.init(context: context, rule: rule).walk(context.tree)
        }
        return finish(context, rules: rules)
    }

    private static func finish(_ context: FileContext, rules: RuleSet) -> [Finding] {
        let disabled = InlineDisables(lines: context.lines)
        var findings = context.findings.filter { !disabled.suppresses($0) }
        for index in findings.indices {
            if let severity = rules.severities[findings[index].ruleID] { findings[index].severity = severity }
        }
        return findings.sorted { ($0.line, $0.column, $0.ruleID) < ($1.line, $1.column, $1.ruleID) }
    }

    /// Applies every mechanical fix, in passes (a fix that overlaps another waits for the next pass, on the text
    /// the first produced), until nothing changes; nil if nothing applied.
    package static func fixAll(source: String, path: String, rules: RuleSet = RuleSet()) -> String? {
        var current = source
        var changed = false
        for _ in 0..<5 {
            let findings = lint(source: current, path: path, rules: rules)
            guard let next = fix(source: current, findings: findings), next != current else { break }
            current = next
            changed = true
        }
        return changed ? current : nil
    }

    /// Applies the findings' fixes to `source`; nil if nothing applies or if the result would not parse.
    package static func fix(source: String, findings: [Finding]) -> String? {
        var edits: [Edit] = []
        for finding in findings where !finding.edits.isEmpty {
            // Skip a fix that overlaps one already taken (two rules, or one set fix reported at several calls).
            let fresh = finding.edits.filter { !edits.contains($0) }
            let overlaps = fresh.contains { new in edits.contains { $0.start < new.end && new.start < $0.end } }
            if !overlaps { edits.append(contentsOf: fresh) }
        }
        guard !edits.isEmpty else { return nil }
        var bytes = Array(source.utf8)
        for edit in edits.sorted(by: { ($0.start, $0.end) > ($1.start, $1.end) }) {
            bytes.replaceSubrange(edit.start..<edit.end, with: Array(edit.replacement.utf8))
        }
        let result = String(decoding: bytes, as: UTF8.self)
        let before = Parser.parse(source: source).hasError
        if Parser.parse(source: result).hasError && !before { return nil }
        return result
    }
}

/// One walk of a file's tree for every rule: each node of a kind some rule registered (``LintVisitor/visitedKinds``)
/// is handed to those rules' `visit`, in the rules' order, then after its children to their `visitPost`. A rule that
/// answers `.skipChildren` is not called again until the walk leaves that node (the walk itself goes on for the
/// others), so each rule sees exactly what a walk of its own would show it.
final class CombinedWalk: SyntaxVisitor {
    /// The node kinds the combined walk can dispatch; a rule registering another kind is a programming error.
    static let dispatchedKinds: Set<SyntaxKind> = [.sourceFile, .functionCallExpr, .classDecl]

    private let visitors: [LintVisitor]
    private let sourceFileRules: [Int]
    private let functionCallRules: [Int]
    private let classDeclRules: [Int]
    /// Per rule, the node whose children it skipped, until the walk leaves it.
    private var skipping: [SyntaxIdentifier?]

    init(_ visitors: [LintVisitor]) {
        self.visitors = visitors
        func rules(visiting kind: SyntaxKind) -> [Int] {
            visitors.indices.filter { type(of: visitors[$0]).visitedKinds.contains(kind) }
        }
        for visitor in visitors {
            let unknown = type(of: visitor).visitedKinds.subtracting(Self.dispatchedKinds)
            precondition(unknown.isEmpty, "CombinedWalk does not dispatch \(unknown) for \(visitor.rule.id): add it")
        }
        sourceFileRules = rules(visiting: .sourceFile)
        functionCallRules = rules(visiting: .functionCallExpr)
        classDeclRules = rules(visiting: .classDecl)
        skipping = Array(repeating: nil, count: visitors.count)
        super.init(viewMode: .sourceAccurate)
    }

    private func enter<Node: SyntaxProtocol>(
        _ node: Node, _ rules: [Int], _ visit: (LintVisitor, Node) -> SyntaxVisitorContinueKind
    ) -> SyntaxVisitorContinueKind {
        for index in rules where skipping[index] == nil {
            if visit(visitors[index], node) == .skipChildren { skipping[index] = node.id }
        }
        return .visitChildren
    }

    private func leave<Node: SyntaxProtocol>(_ node: Node, _ rules: [Int], _ visitPost: (LintVisitor, Node) -> Void) {
        for index in rules {
            if let skipped = skipping[index] {
                guard skipped == node.id else { continue }
                skipping[index] = nil
            }
            visitPost(visitors[index], node)
        }
    }

    override func visit(_ node: SourceFileSyntax) -> SyntaxVisitorContinueKind {
        enter(node, sourceFileRules) { $0.visit($1) }
    }

    override func visitPost(_ node: SourceFileSyntax) {
        leave(node, sourceFileRules) { $0.visitPost($1) }
    }

    override func visit(_ node: FunctionCallExprSyntax) -> SyntaxVisitorContinueKind {
        enter(node, functionCallRules) { $0.visit($1) }
    }

    override func visitPost(_ node: FunctionCallExprSyntax) {
        leave(node, functionCallRules) { $0.visitPost($1) }
    }

    override func visit(_ node: ClassDeclSyntax) -> SyntaxVisitorContinueKind {
        enter(node, classDeclRules) { $0.visit($1) }
    }

    override func visitPost(_ node: ClassDeclSyntax) {
        leave(node, classDeclRules) { $0.visitPost($1) }
    }
}

/// `// untangle:disable:next rule-a rule-b -- reason` (the next line), `// untangle:disable:this rule -- reason` (its
/// own line), `// untangle:disable-file rule -- reason` (the whole file). No rule id means every rule.
struct InlineDisables {
    private var byLine: [Int: Set<String>] = [:]
    private var file: Set<String> = []
    private static let all = "*"

    init(lines: [Substring]) {
        for (index, line) in lines.enumerated() where line.contains("untangle:disable") {
            guard let range = line.range(of: "untangle:disable") else { continue }
            let rest = line[range.upperBound...]
            let directive = rest.prefix { !$0.isWhitespace }
            let ids = Self.ruleIDs(rest.dropFirst(directive.count))
            switch directive {
            case ":next":
                // The next line of code: a reason may continue over further comment lines.
                var target = index + 1
                while target < lines.count, lines[target].trimmingCharacters(in: .whitespaces).hasPrefix("//") {
                    target += 1
                }
                byLine[target + 1, default: []].formUnion(ids)
            case ":this": byLine[index + 1, default: []].formUnion(ids)
            case "-file": file.formUnion(ids)
            default: continue
            }
        }
    }

    private static func ruleIDs(_ text: Substring) -> Set<String> {
        let beforeReason = String(text).components(separatedBy: "--").first ?? ""
        let ids = beforeReason.split(whereSeparator: { $0.isWhitespace || $0 == "," }).map(String.init)
        return ids.isEmpty ? [all] : Set(ids)
    }

    func suppresses(_ finding: Finding) -> Bool {
        if file.contains(Self.all) || file.contains(finding.ruleID) { return true }
        guard let ids = byLine[finding.line] else { return false }
        return ids.contains(Self.all) || ids.contains(finding.ruleID)
    }
}
