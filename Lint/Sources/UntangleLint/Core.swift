// The linter's vocabulary: severities, rule descriptions, findings, mechanical fixes, and the base class every rule's
// syntax visitor derives from. Rules reason from syntax alone (no type checker): each rule's message and doc page say
// when it cannot be sure.

import SwiftParser
import SwiftSyntax

/// How serious a finding is: `error` findings make `untangle lint` exit with status 1.
package enum Severity: String, Codable, Sendable, Comparable {
    case warning
    case error

    package static func < (lhs: Severity, rhs: Severity) -> Bool {
        lhs == .warning && rhs == .error
    }
}

/// A rule: its stable kebab-case id, default severity, one-line message (hazard and fix), and its visitor.
package struct RuleDescription: Sendable {
    package let id: String
    package let severity: Severity
    package let message: String
    package let enabledByDefault: Bool
    package let visitor: LintVisitor.Type

    package init(
        id: String, severity: Severity, message: String, enabledByDefault: Bool = true, visitor: LintVisitor.Type
    ) {
        self.id = id
        self.severity = severity
        self.message = message
        self.enabledByDefault = enabledByDefault
        self.visitor = visitor
    }
}

/// One text replacement in a file, in UTF-8 byte offsets.
package struct Edit: Sendable, Hashable {
    package let start: Int
    package let end: Int
    package let replacement: String

    package init(start: Int, end: Int, replacement: String) {
        self.start = start
        self.end = end
        self.replacement = replacement
    }
}

/// One finding: where, which rule, how serious, what to do; `edits` is its mechanical fix, if it has one.
package struct Finding: Sendable, Hashable, Codable {
    package var path: String
    package let line: Int
    package let column: Int
    package let ruleID: String
    package var severity: Severity
    package let message: String
    /// The finding's source line, trimmed: what a baseline matches on, so findings survive unrelated line shifts.
    package let lineText: String
    package var edits: [Edit] = []

    enum CodingKeys: String, CodingKey {
        case path, line, column, ruleID = "rule", severity, message
    }

    package init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        path = try c.decode(String.self, forKey: .path)
        line = try c.decode(Int.self, forKey: .line)
        column = try c.decode(Int.self, forKey: .column)
        ruleID = try c.decode(String.self, forKey: .ruleID)
        severity = try c.decode(Severity.self, forKey: .severity)
        message = try c.decode(String.self, forKey: .message)
        lineText = ""
    }

    package init(
        path: String, line: Int, column: Int, ruleID: String, severity: Severity, message: String,
        lineText: String, edits: [Edit] = []
    ) {
        self.path = path
        self.line = line
        self.column = column
        self.ruleID = ruleID
        self.severity = severity
        self.message = message
        self.lineText = lineText
        self.edits = edits
    }
}

/// What a rule's visitor sees of the file it walks.
package final class FileContext {
    package let path: String
    package let source: String
    package let tree: SourceFileSyntax
    package let converter: SourceLocationConverter
    package let lines: [Substring]
    package var findings: [Finding] = []
    /// The file's variable declarations, gathered on first use by one walk for every rule that needs them.
    package private(set) lazy var declarations = FileDeclarations(tree)

    /// Whether the file is test code (see `TestCodeDetection.swift`), decided once per file.
    package private(set) lazy var isTestCode = Self.isTestCode(path: path, statements: tree.statements)

    /// Gives the rules what the other files linted together say (``CrossFileFacts``), before the walk.
    package func attach(_ facts: CrossFileFacts) {
        declarations.crossFile = facts
    }

    package init(path: String, source: String) {
        self.path = path
        self.source = source
        self.tree = Parser.parse(source: source)
        self.converter = SourceLocationConverter(fileName: path, tree: tree)
        self.lines = source.split(separator: "\n", omittingEmptySubsequences: false)
    }
}

/// The base of every rule: a syntax visitor that reports findings against its rule. The linter does not walk each
/// rule's visitor over the file: one ``CombinedWalk`` visits the tree once and calls each rule's `visit`/`visitPost`
/// for the node kinds it registers in ``visitedKinds``.
package class LintVisitor: SyntaxVisitor {
    /// The node kinds whose `visit`/`visitPost` this rule overrides: the combined walk calls the rule for these
    /// kinds only. A rule overriding the methods of a kind it does not list here is never called for that kind
    /// (`CombinedWalkTests` compares every rule's findings in the combined walk with a walk of its own).
    package class var visitedKinds: Set<SyntaxKind> { [] }

    package let context: FileContext
    package let rule: RuleDescription

    package required init(context: FileContext, rule: RuleDescription) {
        self.context = context
        self.rule = rule
        super.init(viewMode: .sourceAccurate)
    }

    /// Records a finding at `node`'s first token; `message` overrides the rule's when the situation needs more words.
    package func report(_ node: some SyntaxProtocol, message: String? = nil, edits: [Edit] = []) {
        let location = node.startLocation(converter: context.converter)
        let lineIndex = location.line - 1
        let text = lineIndex < context.lines.count ? String(context.lines[lineIndex]) : ""
        context.findings.append(
            Finding(
                path: context.path, line: location.line, column: location.column, ruleID: rule.id,
                severity: rule.severity, message: message ?? rule.message,
                lineText: text.trimmedBlanks(), edits: edits))
    }

    /// Records a finding at a call's method name (`sync` in `DispatchQueue.main.sync { }`), where editors point.
    package func reportCall(_ call: FunctionCallExprSyntax, message: String? = nil, edits: [Edit] = []) {
        if let member = call.calledExpression.as(MemberAccessExprSyntax.self) {
            report(member.declName, message: message, edits: edits)
        } else {
            report(call, message: message, edits: edits)
        }
    }
}

extension String {
    package func trimmedBlanks() -> String {
        let set: Set<Character> = [" ", "\t", "\r"]
        var s = Substring(self)
        while let f = s.first, set.contains(f) { s = s.dropFirst() }
        while let l = s.last, set.contains(l) { s = s.dropLast() }
        return String(s)
    }
}

// A FileContext is used by one thread at a time: each round of `LintCommand.lintFiles` and `Linter.lint(together:)`
// gives every file to one work item, and the next round starts only after `concurrentPerform` returned, which orders
// the rounds' accesses. Nothing else shares a context between threads.
extension FileContext: @unchecked Sendable {}
