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

    override func visit(_ node: FunctionCallExprSyntax) -> ExprSyntax {
        let rewritten = super.visit(node)
        guard let call = rewritten.as(FunctionCallExprSyntax.self) else { return rewritten }
        return finish(offer(call, node) { $0.rewrite($1, original: $2) } ?? rewritten, node)
    }

    /// Every family's `finish`, in order, on an expression's result.
    private func finish(_ result: ExprSyntax, _ original: some ExprSyntaxProtocol) -> ExprSyntax {
        var result = result
        for rule in rules {
            result = rule.finish(result, original: ExprSyntax(original)) ?? result
        }
        return result
    }

    override func visit(_ node: DeclReferenceExprSyntax) -> ExprSyntax {
        finish(super.visit(node), node)
    }

    override func visit(_ node: MemberAccessExprSyntax) -> ExprSyntax {
        let rewritten = super.visit(node)
        guard let member = rewritten.as(MemberAccessExprSyntax.self) else { return rewritten }
        return finish(offer(member, node) { $0.rewrite($1, original: $2) } ?? rewritten, node)
    }

    override func visit(_ node: GenericSpecializationExprSyntax) -> ExprSyntax {
        let rewritten = super.visit(node)
        guard let generic = rewritten.as(GenericSpecializationExprSyntax.self) else { return rewritten }
        return offer(generic, node) { $0.rewrite($1, original: $2) } ?? rewritten
    }

    override func visit(_ node: TryExprSyntax) -> ExprSyntax {
        let rewritten = super.visit(node)
        guard let tried = rewritten.as(TryExprSyntax.self) else { return rewritten }
        return offer(tried, node) { $0.rewrite($1, original: $2) } ?? rewritten
    }

    override func visit(_ node: ClosureExprSyntax) -> ExprSyntax {
        let rewritten = super.visit(node)
        guard let closure = rewritten.as(ClosureExprSyntax.self) else { return rewritten }
        return offer(closure, node) { $0.rewrite($1, original: $2) } ?? rewritten
    }

    override func visit(_ node: SequenceExprSyntax) -> ExprSyntax {
        let rewritten = super.visit(node)
        guard let sequence = rewritten.as(SequenceExprSyntax.self) else { return rewritten }
        return offer(sequence, node) { $0.rewrite($1, original: $2) } ?? rewritten
    }

    override func visit(_ node: IdentifierTypeSyntax) -> TypeSyntax {
        let rewritten = super.visit(node)
        guard let type = rewritten.as(IdentifierTypeSyntax.self) else { return rewritten }
        return offer(type, node) { $0.rewrite($1, original: $2) } ?? rewritten
    }

    override func visit(_ node: MemberTypeSyntax) -> TypeSyntax {
        let rewritten = super.visit(node)
        guard let type = rewritten.as(MemberTypeSyntax.self) else { return rewritten }
        return offer(type, node) { $0.rewrite($1, original: $2) } ?? rewritten
    }

    override func visit(_ node: ExtensionDeclSyntax) -> DeclSyntax {
        let rewritten = super.visit(node)
        guard let decl = rewritten.as(ExtensionDeclSyntax.self) else { return rewritten }
        return offer(decl, node) { $0.rewrite($1, original: $2) } ?? rewritten
    }

    override func visit(_ node: FunctionDeclSyntax) -> DeclSyntax {
        let rewritten = super.visit(node)
        guard let decl = rewritten.as(FunctionDeclSyntax.self) else { return rewritten }
        return offer(decl, node) { $0.rewrite($1, original: $2) } ?? rewritten
    }

    override func visit(_ node: PatternBindingSyntax) -> PatternBindingSyntax {
        let rewritten = super.visit(node)
        return offer(rewritten, node) { $0.rewrite($1, original: $2) } ?? rewritten
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
