// The one walk of a file: a `SyntaxRewriter` that rewrites children first, then offers each node of a kind some rule
// family rewrites to the families in order (the first replacement wins), and finally places the spots left for a
// person as `// untangle-migrate:` lines above their statements.

import SwiftSyntax

final class MigrationRewriter: SyntaxRewriter {
    private let context: MigrationContext
    private let rules: [MigrationRule]

    init(context: MigrationContext, families: [MigrationRule.Type]) {
        self.context = context
        rules = families.map { $0.init(context: context) }
        super.init(viewMode: .sourceAccurate)
    }

    /// Offers the rewritten `node` to each family until one returns a replacement.
    private func offer<Node: SyntaxProtocol, Result>(
        _ rewritten: Node, _ original: Node, _ rewrite: (MigrationRule, Node, Node) -> Result?
    ) -> Result? {
        for rule in rules {
            if let replacement = rewrite(rule, rewritten, original) { return replacement }
        }
        return nil
    }

    /// The families' rewrite of `rewritten` (`original` with its children rewritten), if it still has `original`'s
    /// kind; otherwise `rewritten` as it is.
    private func dispatch<Node: SyntaxProtocol, Base: SyntaxProtocol>(
        _ original: Node, _ rewritten: Base, _ rewrite: (MigrationRule, Node, Node) -> Base?
    ) -> Base {
        guard let typed = rewritten.as(Node.self) else { return rewritten }
        return offer(typed, original, rewrite) ?? rewritten
    }

    /// Every family's `finish`, in order, on an expression's result.
    private func finish(_ result: ExprSyntax, _ original: some ExprSyntaxProtocol) -> ExprSyntax {
        var result = result
        for rule in rules {
            result = rule.finish(result, original: ExprSyntax(original)) ?? result
        }
        return result
    }

    override func visit(_ node: FunctionCallExprSyntax) -> ExprSyntax {
        finish(dispatch(node, super.visit(node)) { $0.rewrite($1, original: $2) }, node)
    }

    override func visit(_ node: MemberAccessExprSyntax) -> ExprSyntax {
        finish(dispatch(node, super.visit(node)) { $0.rewrite($1, original: $2) }, node)
    }

    override func visit(_ node: DeclReferenceExprSyntax) -> ExprSyntax {
        finish(super.visit(node), node)
    }

    override func visit(_ node: GenericSpecializationExprSyntax) -> ExprSyntax {
        dispatch(node, super.visit(node)) { $0.rewrite($1, original: $2) }
    }

    override func visit(_ node: TryExprSyntax) -> ExprSyntax {
        dispatch(node, super.visit(node)) { $0.rewrite($1, original: $2) }
    }

    override func visit(_ node: SequenceExprSyntax) -> ExprSyntax {
        dispatch(node, super.visit(node)) { $0.rewrite($1, original: $2) }
    }

    override func visit(_ node: IdentifierTypeSyntax) -> TypeSyntax {
        dispatch(node, super.visit(node)) { $0.rewrite($1, original: $2) }
    }

    override func visit(_ node: MemberTypeSyntax) -> TypeSyntax {
        dispatch(node, super.visit(node)) { $0.rewrite($1, original: $2) }
    }

    override func visit(_ node: ExtensionDeclSyntax) -> DeclSyntax {
        dispatch(node, super.visit(node)) { $0.rewrite($1, original: $2) }
    }

    override func visit(_ node: FunctionDeclSyntax) -> DeclSyntax {
        dispatch(node, super.visit(node)) { $0.rewrite($1, original: $2) }
    }

    override func visit(_ node: SourceFileSyntax) -> SourceFileSyntax {
        var rewritten = super.visit(node)
        rewritten = offer(rewritten, node) { $0.rewrite($1, original: $2) } ?? rewritten
        // Spots outside any statement (rare: in an attribute of the file's first declaration) go on the first line.
        let left = context.takeSpots(in: 0..<Int.max)
        guard !left.isEmpty, let first = rewritten.firstToken(viewMode: .sourceAccurate) else { return rewritten }
        let marked = first.with(\.leadingTrivia, Self.marking(first.leadingTrivia, with: left))
        return rewritten.replacing(first, with: marked)
    }

    override func visit(_ node: CodeBlockItemSyntax) -> CodeBlockItemSyntax {
        let rewritten = super.visit(node)
        return place(spotsIn: node, on: rewritten)
    }

    override func visit(_ node: MemberBlockItemSyntax) -> MemberBlockItemSyntax {
        let rewritten = super.visit(node)
        return place(spotsIn: node, on: rewritten)
    }

    /// Puts a `// untangle-migrate: reason` line above the statement for each spot left inside it (innermost
    /// statement first: the walk is bottom-up).
    private func place<Item: SyntaxProtocol>(spotsIn original: Item, on rewritten: Item) -> Item {
        let range = original.position.utf8Offset..<original.endPosition.utf8Offset
        let spots = context.takeSpots(in: range)
        guard !spots.isEmpty else { return rewritten }
        return rewritten.with(\.leadingTrivia, Self.marking(rewritten.leadingTrivia, with: spots))
    }

    /// `trivia` with one marker comment line per spot, at the indentation of the line the statement starts on.
    static func marking(_ trivia: Trivia, with spots: [MigrationSpot]) -> Trivia {
        var pieces = Array(trivia)
        var indentation: [TriviaPiece] = []
        for piece in pieces.reversed() {
            if case .spaces = piece {
                indentation.insert(piece, at: 0)
            } else if case .tabs = piece {
                indentation.insert(piece, at: 0)
            } else {
                break
            }
        }
        var existing = Set(
            pieces.compactMap { piece -> String? in
                if case .lineComment(let text) = piece { return text }
                return nil
            })
        for spot in spots {
            let comment = "// \(migrationMarker) \(spot.reason)"
            guard existing.insert(comment).inserted else { continue }
            pieces.append(.lineComment(comment))
            pieces.append(.newlines(1))
            pieces.append(contentsOf: indentation)
        }
        return Trivia(pieces: pieces)
    }
}

extension SyntaxProtocol {
    /// This tree with `token` (one of its tokens) replaced.
    func replacing(_ token: TokenSyntax, with replacement: TokenSyntax) -> Self {
        TokenReplacer(token.id, replacement).rewrite(self).cast(Self.self)
    }
}

private final class TokenReplacer: SyntaxRewriter {
    let target: SyntaxIdentifier
    let replacement: TokenSyntax

    init(_ target: SyntaxIdentifier, _ replacement: TokenSyntax) {
        self.target = target
        self.replacement = replacement
        super.init(viewMode: .sourceAccurate)
    }

    override func visit(_ token: TokenSyntax) -> TokenSyntax {
        token.id == target ? replacement : token
    }
}
