// Test code: where deliberate blocking, discarded cancellables and hand-rolled helpers live. Rules that are on by
// default skip it when their findings there are made on purpose (a test owns its threads and its publishers).

import SwiftSyntax

extension FileContext {
    /// Whether the file is test code: a folder of its path is named `Tests`/`Test` or ends so (`AppTests`,
    /// `RxSwiftTests`, `UITests`), or the file imports a test framework (`XCTest`, `Testing`, RxSwift's `RxTest`,
    /// `RxBlocking`) or imports a module `@testable`.
    static func isTestCode(path: String, statements: CodeBlockItemListSyntax) -> Bool {
        let folders = path.split(separator: "/").dropLast()
        if folders.contains(where: { $0.hasSuffix("Tests") || $0.hasSuffix("Test") }) { return true }
        return importsTestCode(statements)
    }

    /// The file's imports, those inside `#if` blocks included.
    private static func importsTestCode(_ statements: CodeBlockItemListSyntax) -> Bool {
        statements.contains { item in
            if let conditional = item.item.as(IfConfigDeclSyntax.self) {
                return conditional.clauses.contains {
                    guard case .statements(let inner) = $0.elements else { return false }
                    return importsTestCode(inner)
                }
            }
            guard let importDecl = item.item.as(ImportDeclSyntax.self) else { return false }
            let testable = importDecl.attributes.contains {
                $0.as(AttributeSyntax.self)?.attributeName.trimmedDescription == "testable"
            }
            let module = importDecl.path.first?.name.text ?? ""
            return testable || ["XCTest", "Testing", "RxTest", "RxBlocking", "UntangleTesting"].contains(module)
        }
    }
}
