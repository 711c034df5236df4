// The vocabulary of `untangle migrate`: what one rewrite and one spot left for a person are, what a rule family sees
// of the file it rewrites, and the base class every rule family derives from.
//
// A rule family is shaped like one of swift-syntax's `SyntaxRewriter`s: it overrides a `rewrite` method per node kind
// it rewrites and returns the replacement (or nil: not mine). The families do not walk the file themselves: one
// ``MigrationRewriter`` walks it once, bottom-up (children first, as `SyntaxRewriter` does), and hands each node of a
// kind to the families in order until one rewrites it. Each method gets two nodes: `node`, whose children are
// already rewritten (build the replacement from it), and `original`, the same node in the untouched tree (ask it
// questions: its parent, its position, what its receiver was).

import SwiftParser
import SwiftSyntax

/// One rewrite made: where (in the original file), which rule, the text before and after (first line, shortened).
package struct MigrationRewrite: Sendable, Codable, Hashable {
    package var path: String
    package let line: Int
    package let column: Int
    package let rule: String
    package let before: String
    package let after: String
}

/// One spot left for a person: where (in the original file; the rewritten file has a
/// `// untangle-migrate: <reason>` line above the statement) and what to decide.
package struct MigrationSpot: Sendable, Codable, Hashable {
    package var path: String
    package let line: Int
    package let column: Int
    package let reason: String
}

/// The marker a spot leaves in the rewritten file, above the statement: `// untangle-migrate: <reason>`.
package let migrationMarker = "untangle-migrate:"

/// What the rule families of one file share: the original tree, the facts of the run, and what was done.
package final class MigrationContext {
    package let path: String
    package let tree: SourceFileSyntax
    package let facts: MigrationFacts
    package private(set) var rewrites: [MigrationRewrite] = []
    private(set) var spots: [(offset: Int, spot: MigrationSpot)] = []
    /// Names a rewrite used that need `import Dispatch` (or Foundation): `DispatchQueue`.
    var usesDispatch = false
    private lazy var converter = SourceLocationConverter(fileName: path, tree: tree)

    package init(path: String, tree: SourceFileSyntax, facts: MigrationFacts) {
        self.path = path
        self.tree = tree
        self.facts = facts
    }

    /// Records that `rule` rewrote `original` into `replacement`.
    func record(_ rule: String, _ original: some SyntaxProtocol, _ replacement: some SyntaxProtocol) {
        let location = original.startLocation(converter: converter)
        rewrites.append(
            MigrationRewrite(
                path: path, line: location.line, column: location.column, rule: rule,
                before: Self.excerpt(original.trimmedDescription), after: Self.excerpt(replacement.trimmedDescription)))
    }

    /// Leaves `original` for a person: the statement around it gets a `// untangle-migrate: reason` line.
    func spot(_ original: some SyntaxProtocol, _ reason: String) {
        let offset = original.positionAfterSkippingLeadingTrivia.utf8Offset
        guard !spots.contains(where: { $0.offset == offset && $0.spot.reason == reason }) else { return }
        let location = original.startLocation(converter: converter)
        spots.append(
            (offset, MigrationSpot(path: path, line: location.line, column: location.column, reason: reason)))
    }

    /// The spots whose node starts in `range` (original UTF-8 offsets) and are not placed yet; marks them placed.
    func takeSpots(in range: Range<Int>) -> [MigrationSpot] {
        var taken: [MigrationSpot] = []
        for index in spots.indices where range.contains(spots[index].offset) && spots[index].offset >= 0 {
            taken.append(spots[index].spot)
            spots[index].offset = -1 - spots[index].offset
        }
        return taken
    }

    /// Every spot, placed or not.
    var allSpots: [MigrationSpot] { spots.map(\.spot) }

    private static func excerpt(_ text: String) -> String {
        let firstLine = text.split(separator: "\n", omittingEmptySubsequences: false).first.map(String.init) ?? ""
        let line = firstLine.count < text.count ? firstLine + " …" : firstLine
        return line.count > 100 ? String(line.prefix(97)) + "..." : line
    }
}

/// The base of every rule family. Override the `rewrite` methods of the node kinds the family rewrites; return nil
/// for a node that is not the family's. Call ``record(_:_:)`` for each rewrite and ``spot(_:_:)`` for each spot.
class MigrationRule {
    /// The family's id, as in the JSON report's `rule`.
    class var id: String { fatalError("override") }

    let context: MigrationContext
    var facts: MigrationFacts { context.facts }

    required init(context: MigrationContext) {
        self.context = context
    }

    func rewrite(_ node: FunctionCallExprSyntax, original: FunctionCallExprSyntax) -> ExprSyntax? { nil }
    func rewrite(_ node: MemberAccessExprSyntax, original: MemberAccessExprSyntax) -> ExprSyntax? { nil }
    func rewrite(_ node: TryExprSyntax, original: TryExprSyntax) -> ExprSyntax? { nil }
    func rewrite(_ node: GenericSpecializationExprSyntax, original: GenericSpecializationExprSyntax) -> ExprSyntax? {
        nil
    }
    func rewrite(_ node: IdentifierTypeSyntax, original: IdentifierTypeSyntax) -> TypeSyntax? { nil }
    func rewrite(_ node: MemberTypeSyntax, original: MemberTypeSyntax) -> TypeSyntax? { nil }
    func rewrite(_ node: ExtensionDeclSyntax, original: ExtensionDeclSyntax) -> DeclSyntax? { nil }
    func rewrite(_ node: FunctionDeclSyntax, original: FunctionDeclSyntax) -> DeclSyntax? { nil }
    func rewrite(_ node: SequenceExprSyntax, original: SequenceExprSyntax) -> ExprSyntax? { nil }
    func rewrite(_ node: SourceFileSyntax, original: SourceFileSyntax) -> SourceFileSyntax? { nil }

    /// Called for every call, member access and name after the families rewrote it (or not): `node` is the result so far. Returning a
    /// replacement adjusts it for the place its value goes (see ``SlotRules``); every family's `finish` runs, in order.
    func finish(_ node: ExprSyntax, original: ExprSyntax) -> ExprSyntax? { nil }

    /// Replaces `node` (rewritten) by the expression `text`, with `node`'s trivia, and records the rewrite of
    /// `original`.
    func replace(_ node: some SyntaxProtocol, of original: some SyntaxProtocol, with text: String) -> ExprSyntax {
        let replacement = parseExpression(text).withTrivia(of: node)
        record(original, replacement)
        return replacement
    }

    /// Records a rewrite of `original` by this family.
    func record(_ original: some SyntaxProtocol, _ replacement: some SyntaxProtocol) {
        context.record(Self.id, original, replacement)
    }

    /// Leaves `original` for a person, with what to decide.
    func spot(_ original: some SyntaxProtocol, _ reason: String) {
        context.spot(original, reason)
    }
}

/// Parses `text` as an expression (a rewrite's replacement, built from the rewritten pieces' text).
func parseExpression(_ text: String) -> ExprSyntax {
    var parser = Parser(text)
    return ExprSyntax.parse(from: &parser)
}

/// Parses `text` as a declaration.
func parseDecl(_ text: String) -> DeclSyntax {
    var parser = Parser(text)
    return DeclSyntax.parse(from: &parser)
}

/// Parses `text` as a type.
func parseType(_ text: String) -> TypeSyntax {
    var parser = Parser(text)
    return TypeSyntax.parse(from: &parser)
}

extension SyntaxProtocol {
    /// This node with `other`'s leading and trailing trivia (a replacement keeps the replaced node's layout).
    func withTrivia(of other: some SyntaxProtocol) -> Self {
        with(\.leadingTrivia, other.leadingTrivia).with(\.trailingTrivia, other.trailingTrivia)
    }
}
