// The unified diff --dry-run prints: hunks with three lines of context, merged when close, none for equal texts.

import UntangleLint
import XCTest

final class UnifiedDiffTests: XCTestCase {
    func testEqualTextsHaveNoDiff() {
        XCTAssertEqual(UnifiedDiff.make(old: "a\nb\n", new: "a\nb\n", path: "f.swift"), "")
    }

    func testDistantChangesMakeTwoHunksWithContext() {
        let old = (1...20).map { "line \($0)" }.joined(separator: "\n")
        var lines = (1...20).map { "line \($0)" }
        lines[1] = "changed 2"
        lines.insert("inserted", at: 17)
        let diff = UnifiedDiff.make(old: old, new: lines.joined(separator: "\n"), path: "f.swift")
        XCTAssertEqual(
            diff,
            """
            --- f.swift
            +++ f.swift
            @@ -1,5 +1,5 @@
             line 1
            -line 2
            +changed 2
             line 3
             line 4
             line 5
            @@ -15,6 +15,7 @@
             line 15
             line 16
             line 17
            +inserted
             line 18
             line 19
             line 20

            """)
    }
}
