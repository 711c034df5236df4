// Output: a live progress bar per check when stdout is a terminal, plain lines otherwise (logs, CI), then the
// results table.

import Foundation

/// The outcome of one check, as reported.
struct CheckResult: Sendable {
    let name: String
    let units: Int
    let threads: Int
    let seconds: Double
    /// Nil when the check passed.
    let failure: String?
    let note: String?

    var passed: Bool { failure == nil }
}

/// Writes progress and results to standard output.
struct Terminal {
    /// Whether stdout is a terminal: if so, progress is drawn in place with `\r`; if not, only whole lines are
    /// written, so that logs stay readable.
    let interactive = isatty(STDOUT_FILENO) != 0
    private var lastDraw = 0.0

    private static let barWidth = 30
    private static let nameWidth = Scenarios.all.map(\.name.count).max() ?? 20
    /// At most one redraw per interval.
    private static let redrawInterval = 0.1

    func line(_ text: String) {
        write(text + "\n")
    }

    /// Redraws the current check's progress bar (terminals only, throttled).
    mutating func progress(position: String, name: String, fraction: Double, elapsed: Double) {
        guard interactive else { return }
        let now = monotonicSeconds()
        guard now - lastDraw >= Self.redrawInterval else { return }
        lastDraw = now
        let filled = Int((fraction * Double(Self.barWidth)).rounded(.down))
        let bar = String(repeating: "#", count: filled) + String(repeating: ".", count: Self.barWidth - filled)
        let percent = pad(String(Int(fraction * 100)), 3)
        write("\r\(position) \(padRight(name, Self.nameWidth))  [\(bar)] \(percent)%  \(seconds(elapsed))\u{1B}[K")
    }

    /// Replaces the progress bar with the check's final line.
    mutating func finished(position: String, _ result: CheckResult) {
        let verdict = result.passed ? colored("PASS", green: true) : colored("FAIL", green: false)
        var text = "\(position) \(padRight(result.name, Self.nameWidth))  \(verdict)  \(seconds(result.seconds))"
        if let failure = result.failure {
            text += "  \(failure)"
        }
        write((interactive ? "\r" : "") + text + (interactive ? "\u{1B}[K\n" : "\n"))
        lastDraw = 0
    }

    /// The summary table, then one line per failure and per note.
    func table(_ results: [CheckResult]) {
        let headers = ["scenario", "iterations", "threads", "time", "result"]
        let rows = results.map { result in
            [
                result.name, String(result.units), String(result.threads), seconds(result.seconds),
                result.passed ? "PASS" : "FAIL",
            ]
        }
        var widths = headers.map(\.count)
        for row in rows {
            for (column, cell) in row.enumerated() {
                widths[column] = max(widths[column], cell.count)
            }
        }
        // The scenario name is left-aligned, the numbers right-aligned.
        func render(_ cells: [String]) -> String {
            cells.enumerated().map { column, cell in
                column == 0 ? padRight(cell, widths[column]) : column == 4 ? cell : pad(cell, widths[column])
            }
            .joined(separator: "  ")
        }
        line("")
        line(render(headers))
        line(String(repeating: "-", count: widths.reduce(0, +) + 2 * (widths.count - 1)))
        for row in rows {
            line(render(row))
        }
        for result in results {
            if let failure = result.failure {
                line("FAIL \(result.name): \(failure)")
            }
        }
        for result in results {
            if let note = result.note {
                line("note \(result.name): \(note)")
            }
        }
    }

    private func write(_ text: String) {
        FileHandle.standardOutput.write(Data(text.utf8))
    }

    private func colored(_ text: String, green: Bool) -> String {
        interactive ? "\u{1B}[\(green ? 32 : 31)m\(text)\u{1B}[0m" : text
    }
}

func seconds(_ value: Double) -> String {
    String(format: "%.2f s", value)
}

/// Right-aligns `text` in `width` columns.
func pad(_ text: String, _ width: Int) -> String {
    String(repeating: " ", count: max(0, width - text.count)) + text
}

/// Left-aligns `text` in `width` columns.
func padRight(_ text: String, _ width: Int) -> String {
    text + String(repeating: " ", count: max(0, width - text.count))
}
