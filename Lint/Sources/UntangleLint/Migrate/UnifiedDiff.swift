// `untangle migrate --dry-run` prints what it would change as a unified diff (`diff -u`'s format, `patch -p0`
// applies it). Lines are compared with Myers' O(ND) algorithm: a migration changes few lines of a long file.

/// A unified diff of two texts, by lines.
package enum UnifiedDiff {
    /// The diff of `old` and `new` with `context` lines around each change, or "" when they are equal.
    package static func make(old: String, new: String, path: String, context: Int = 3) -> String {
        guard old != new else { return "" }
        let a = old.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let b = new.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let script = editScript(a, b)
        var output = "--- \(path)\n+++ \(path)\n"
        var index = 0
        while index < script.count {
            guard script[index].kind != .same else {
                index += 1
                continue
            }
            // A hunk: from `context` lines before this change to `context` lines after the last change that is
            // at most 2 * context lines away from the next.
            let start = max(0, index - context)
            var end = index
            var gap = 0
            var probe = index
            while probe < script.count {
                if script[probe].kind == .same {
                    gap += 1
                    if gap > 2 * context { break }
                } else {
                    gap = 0
                    end = probe
                }
                probe += 1
            }
            let stop = min(script.count, end + context + 1)
            let hunk = script[start..<stop]
            let oldStart = (hunk.first { $0.kind != .insert }?.oldIndex ?? (script[start].oldIndex)) + 1
            let newStart = (hunk.first { $0.kind != .delete }?.newIndex ?? (script[start].newIndex)) + 1
            let oldCount = hunk.filter { $0.kind != .insert }.count
            let newCount = hunk.filter { $0.kind != .delete }.count
            output += "@@ -\(oldCount == 0 ? oldStart - 1 : oldStart),\(oldCount) "
            output += "+\(newCount == 0 ? newStart - 1 : newStart),\(newCount) @@\n"
            for line in hunk {
                switch line.kind {
                case .same: output += " \(a[line.oldIndex])\n"
                case .delete: output += "-\(a[line.oldIndex])\n"
                case .insert: output += "+\(b[line.newIndex])\n"
                }
            }
            index = stop
        }
        return output
    }

    struct Line {
        enum Kind { case same, delete, insert }
        var kind: Kind
        /// The line's index in the old text (for an insert: the old line it comes before).
        var oldIndex: Int
        /// The line's index in the new text (for a delete: the new line it comes before).
        var newIndex: Int
    }

    /// The shortest edit script from `a` to `b`, as a list of kept, deleted and inserted lines: the common prefix and
    /// suffix, and Myers' algorithm on what is between.
    static func editScript(_ a: [String], _ b: [String]) -> [Line] {
        var prefix = 0
        while prefix < a.count && prefix < b.count && a[prefix] == b[prefix] { prefix += 1 }
        var suffix = 0
        while suffix < a.count - prefix && suffix < b.count - prefix
            && a[a.count - 1 - suffix] == b[b.count - 1 - suffix]
        {
            suffix += 1
        }
        var lines = (0..<prefix).map { Line(kind: .same, oldIndex: $0, newIndex: $0) }
        let middle = myers(Array(a[prefix..<(a.count - suffix)]), Array(b[prefix..<(b.count - suffix)]))
        lines += middle.map { Line(kind: $0.kind, oldIndex: $0.oldIndex + prefix, newIndex: $0.newIndex + prefix) }
        lines += (0..<suffix).map {
            Line(kind: .same, oldIndex: a.count - suffix + $0, newIndex: b.count - suffix + $0)
        }
        return lines
    }

    /// Myers 1986: the shortest edit script from `a` to `b`.
    static func myers(_ a: [String], _ b: [String]) -> [Line] {
        let n = a.count
        let m = b.count
        let max = n + m
        var v = [Int](repeating: 0, count: 2 * max + 2)
        var trace: [[Int]] = []
        var found = false
        for d in 0...max {
            trace.append(v)
            for k in stride(from: -d, through: d, by: 2) {
                var x: Int
                if k == -d || (k != d && v[k - 1 + max] < v[k + 1 + max]) {
                    x = v[k + 1 + max]
                } else {
                    x = v[k - 1 + max] + 1
                }
                var y = x - k
                while x < n && y < m && a[x] == b[y] {
                    x += 1
                    y += 1
                }
                v[k + max] = x
                if x >= n && y >= m {
                    found = true
                    break
                }
            }
            if found { break }
        }
        // Walk the trace back from the end.
        var lines: [Line] = []
        var x = n
        var y = m
        for d in stride(from: trace.count - 1, through: 0, by: -1) {
            let v = trace[d]
            let k = x - y
            let previousK: Int
            if k == -d || (k != d && v[k - 1 + max] < v[k + 1 + max]) {
                previousK = k + 1
            } else {
                previousK = k - 1
            }
            let previousX = d == 0 ? 0 : v[previousK + max]
            let previousY = previousX - previousK
            while x > previousX && y > previousY {
                x -= 1
                y -= 1
                lines.append(Line(kind: .same, oldIndex: x, newIndex: y))
            }
            if d > 0 {
                if x == previousX {
                    y -= 1
                    lines.append(Line(kind: .insert, oldIndex: x, newIndex: y))
                } else {
                    x -= 1
                    lines.append(Line(kind: .delete, oldIndex: x, newIndex: y))
                }
            }
        }
        return lines.reversed()
    }
}
