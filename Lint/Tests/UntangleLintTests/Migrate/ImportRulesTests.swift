// The imports family: RxSwift, RxRelay, RxCocoa (and Combine) become Untangle and UntangleExtras in place of the first
// of them; comments stay; Dispatch is added when a rewrite needs DispatchQueue; RxSwift-based libraries are marked.

import UntangleLint
import XCTest

final class ImportRulesTests: XCTestCase {
    func testRxImportsBecomeUntangleAndUntangleExtras() {
        assertMigrates(
            """
            import Foundation
            import RxSwift  // streams
            import RxCocoa

            let bag = DisposeBag()
            """,
            to: """
                import Foundation
                import Untangle  // streams
                import UntangleExtras

                let bag = CancelBag()
                """)
    }

    func testACommentAboveADroppedImportStays() {
        assertMigrates(
            """
            import RxSwift
            // Relays for the view models.
            import RxRelay

            let relay = PublishRelay<Int>()
            """,
            to: """
                import Untangle
                import UntangleExtras
                // Relays for the view models.

                let relay = PassthroughRelay<Int>()
                """)
    }

    func testCombineIsReplacedTooAndExistingImportsAreNotDoubled() {
        assertMigrates(
            """
            import Combine
            import RxSwift
            import UntangleExtras

            let bag = DisposeBag()
            """,
            to: """
                import Untangle
                import UntangleExtras

                let bag = CancelBag()
                """)
    }

    func testDispatchIsImportedWhenARewriteNamesDispatchQueue() {
        assertMigrates(
            rxFile("let scheduler = MainScheduler.asyncInstance\n"),
            to: "import Untangle\nimport UntangleExtras\nimport Dispatch\n\nlet scheduler = DispatchQueue.main\n")
    }

    func testALibraryBuiltOnRxSwiftIsMarked() {
        assertMigrates(
            "import RxSwift\nimport RxDataSources\n\nlet bag = DisposeBag()\n",
            to: """
                import Untangle
                import UntangleExtras
                // untangle-migrate: RxDataSources is built on RxSwift: replace what this file uses of it, then remove the import
                import RxDataSources

                let bag = CancelBag()

                """,
            spots: ["RxDataSources is built on RxSwift: replace what this file uses of it, then remove the import"])
    }

    func testAFileWithoutRxSwiftImportsIsLeftAlone() {
        let source = "import Foundation\n\nlet bag = DisposeBag()  // some other DisposeBag\nx.retry(3)\n"
        let result = assertMigrates(source, to: source)
        XCTAssertFalse(result.isRxFile)
        XCTAssertEqual(result.rewrites, [])
    }

    func testImportsInsideIfBlocksAreReplacedToo() {
        assertMigrates(
            "#if canImport(UIKit)\nimport UIKit\nimport RxSwift\n\nlet bag = DisposeBag()\n#endif\n",
            to:
                "#if canImport(UIKit)\nimport UIKit\nimport Untangle\nimport UntangleExtras\n\nlet bag = CancelBag()\n#endif\n"
        )
    }
}
