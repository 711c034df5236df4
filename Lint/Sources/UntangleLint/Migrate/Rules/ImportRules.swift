// Imports: `import RxSwift`, `RxRelay`, `RxCocoa` (and `Combine`, which Untangle replaces) become `import Untangle`
// and `import UntangleExtras`, in the place of the first of them; `import Dispatch` is added when a rewrite names
// `DispatchQueue` and nothing imports it yet. Other RxSwift-based libraries (RxDataSources, RxSwiftExt...) stay,
// marked: they need RxSwift.

import SwiftSyntax

final class ImportRules: MigrationRule {
    override class var id: String { "imports" }

    static let replaced: Set<String> = ["RxSwift", "RxRelay", "RxCocoa", "Combine"]
    static let dispatchProviders: Set<String> = ["Foundation", "Dispatch", "UIKit", "AppKit", "Cocoa", "SwiftUI"]

    override func rewrite(_ node: SourceFileSyntax, original: SourceFileSyntax) -> SourceFileSyntax? {
        let imported = Self.importedModules(in: node.statements)
        var wanted = ["Untangle", "UntangleExtras"].filter { !imported.contains($0) }
        if context.usesDispatch && imported.isDisjoint(with: Self.dispatchProviders) { wanted.append("Dispatch") }
        guard let statements = rewriteImports(in: node.statements, original: original.statements, wanted: &wanted)
        else { return nil }
        return node.with(\.statements, statements)
    }

    /// Every module a list imports, inside `#if` blocks too.
    static func importedModules(in list: CodeBlockItemListSyntax) -> Set<String> {
        var modules = Set<String>()
        for item in list {
            if let decl = item.item.as(ImportDeclSyntax.self), let module = decl.path.first?.name.text {
                modules.insert(module)
            } else if let conditional = item.item.as(IfConfigDeclSyntax.self) {
                for clause in conditional.clauses {
                    if case .statements(let nested)? = clause.elements {
                        modules.formUnion(importedModules(in: nested))
                    }
                }
            }
        }
        return modules
    }

    /// The list with its RxSwift imports replaced (the first one by the `wanted` imports), recursing into `#if`
    /// blocks (files often import RxSwift inside `#if canImport(UIKit)`); nil if nothing changed.
    private func rewriteImports(
        in list: CodeBlockItemListSyntax, original: CodeBlockItemListSyntax, wanted: inout [String]
    ) -> CodeBlockItemListSyntax? {
        var items: [CodeBlockItemSyntax] = []
        var pendingTrivia: Trivia = []
        var changed = false
        for (item, originalItem) in zip(list, original) {
            if let conditional = item.item.as(IfConfigDeclSyntax.self),
                let originalConditional = originalItem.item.as(IfConfigDeclSyntax.self)
            {
                var clauses: [IfConfigClauseSyntax] = []
                for (clause, originalClause) in zip(conditional.clauses, originalConditional.clauses) {
                    if case .statements(let nested)? = clause.elements,
                        case .statements(let originalNested)? = originalClause.elements,
                        let rewritten = rewriteImports(in: nested, original: originalNested, wanted: &wanted)
                    {
                        clauses.append(clause.with(\.elements, .statements(rewritten)))
                        changed = true
                    } else {
                        clauses.append(clause)
                    }
                }
                items.append(
                    Self.joining(
                        pendingTrivia,
                        item.with(
                            \.item,
                            .decl(
                                DeclSyntax(
                                    conditional.with(\.clauses, IfConfigClauseListSyntax(clauses)))))))
                pendingTrivia = []
                continue
            }
            guard let decl = item.item.as(ImportDeclSyntax.self), let module = decl.path.first?.name.text,
                Self.replaced.contains(module), decl.importKindSpecifier == nil
            else {
                var kept = item
                if let decl = item.item.as(ImportDeclSyntax.self), let module = decl.path.first?.name.text,
                    module.hasPrefix("Rx"), !Migrator.rxModules.contains(module)
                {
                    spot(
                        decl,
                        "\(module) is built on RxSwift: replace what this file uses of it, then remove the import")
                    // The walk placed statements' spots already: this one goes above the import now.
                    let range = originalItem.position.utf8Offset..<originalItem.endPosition.utf8Offset
                    kept = kept.with(
                        \.leadingTrivia,
                        MigrationRewriter.marking(kept.leadingTrivia, with: context.takeSpots(in: range)))
                }
                items.append(Self.joining(pendingTrivia, kept))
                pendingTrivia = []
                continue
            }
            changed = true
            if wanted.isEmpty {
                // Dropped: a comment above it stays, above the next item.
                if item.leadingTrivia.contains(where: \.isComment) { pendingTrivia += item.leadingTrivia }
                continue
            }
            var replacement = decl.with(
                \.path,
                ImportPathComponentListSyntax([ImportPathComponentSyntax(name: .identifier(wanted.removeFirst()))]))
            replacement = replacement.with(\.trailingTrivia, decl.trailingTrivia)
            items.append(Self.joining(pendingTrivia, item.with(\.item, .decl(DeclSyntax(replacement)))))
            pendingTrivia = []
            record(decl, replacement)
            // The other wanted imports follow the first replaced one, one per line.
            while !wanted.isEmpty {
                let added = ImportDeclSyntax(
                    importKeyword: .keyword(.import, trailingTrivia: .space),
                    path: ImportPathComponentListSyntax([
                        ImportPathComponentSyntax(name: .identifier(wanted.removeFirst()))
                    ]))
                items.append(CodeBlockItemSyntax(leadingTrivia: .newline, item: .decl(DeclSyntax(added))))
            }
        }
        guard changed else { return nil }
        if !pendingTrivia.isEmpty, let last = items.indices.last {
            items[last] = items[last].with(\.trailingTrivia, items[last].trailingTrivia + pendingTrivia)
        }
        return CodeBlockItemListSyntax(items)
    }

    /// `item` preceded by the leading trivia of a dropped import (its comment and the line break after it), without
    /// doubling that line break.
    private static func joining(_ pending: Trivia, _ item: CodeBlockItemSyntax) -> CodeBlockItemSyntax {
        guard !pending.isEmpty else { return item }
        var pieces = Array(item.leadingTrivia)
        if let first = pieces.first, case .newlines(let count) = first {
            if count > 1 { pieces[0] = .newlines(count - 1) } else { pieces.removeFirst() }
        }
        return item.with(\.leadingTrivia, pending + Trivia(pieces: pieces))
    }
}
