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
        var items: [CodeBlockItemSyntax] = []
        var imported = Set<String>()
        for item in node.statements {
            if let decl = item.item.as(ImportDeclSyntax.self), let module = decl.path.first?.name.text {
                imported.insert(module)
            }
        }
        var wanted = ["Untangle", "UntangleExtras"].filter { !imported.contains($0) }
        if context.usesDispatch && imported.isDisjoint(with: Self.dispatchProviders) { wanted.append("Dispatch") }
        var pendingTrivia: Trivia = []
        var changed = false
        for item in node.statements {
            guard let decl = item.item.as(ImportDeclSyntax.self), let module = decl.path.first?.name.text,
                Self.replaced.contains(module), decl.importKindSpecifier == nil
            else {
                if let decl = item.item.as(ImportDeclSyntax.self), let module = decl.path.first?.name.text,
                    module.hasPrefix("Rx"), !Migrator.rxModules.contains(module)
                {
                    spot(
                        decl,
                        "\(module) is built on RxSwift: replace what this file uses of it, then remove the import")
                }
                items.append(
                    pendingTrivia.isEmpty ? item : item.with(\.leadingTrivia, pendingTrivia + item.leadingTrivia))
                pendingTrivia = []
                continue
            }
            changed = true
            if wanted.isEmpty {
                // Dropped: its comments (not its blank lines) move to the next item.
                pendingTrivia += Trivia(pieces: item.leadingTrivia.filter { $0.isComment })
                continue
            }
            var replacement = decl.with(
                \.path,
                ImportPathComponentListSyntax([
                    ImportPathComponentSyntax(
                        name: .identifier(wanted.removeFirst()))
                ]))
            replacement = replacement.with(\.trailingTrivia, decl.trailingTrivia)
            items.append(
                item.with(\.item, .decl(DeclSyntax(replacement))).with(
                    \.leadingTrivia, pendingTrivia + item.leadingTrivia))
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
        return node.with(\.statements, CodeBlockItemListSyntax(items))
    }
}
