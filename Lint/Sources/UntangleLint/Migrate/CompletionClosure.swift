// RxSwift hands errors and completion to two closures (`onError:`, `onCompleted:`); Combine hands both to one
// (`receiveCompletion:`, given `.failure(error)` or `.finished`). This builds that one closure from the two, keeping
// their bodies as written: the captures move to the new closure (they are evaluated when it is formed, as before),
// the error parameter becomes the pattern's binding, `$0` in the error body is renamed, and a handler given by name
// (`onError: self.show`) is called.

import SwiftSyntax

struct CompletionClosure {
    /// The closure's text, or nil when the two handlers' captures conflict (`weak self` in one, `unowned self` in the
    /// other): then ``conflict`` says so.
    private(set) var text: String?
    private(set) var conflict: String?

    private struct Part {
        var captures: [String] = []
        var binding: String?  // the error's name, nil when unused
        var body: String  // statements, layout kept
        var multiline: Bool
        var indentation: String = ""
        var closing: String = ""
    }

    /// `onError` receives the error, `onCompleted` nothing; either may be missing (both missing: `{ _ in }`).
    init(onError: ExprSyntax?, onCompleted: ExprSyntax?) {
        guard onError != nil || onCompleted != nil else {
            text = "{ _ in }"
            return
        }
        let mentioned = [onError, onCompleted].compactMap { $0 }.contains { mentions($0, "completion") }
        let completion = mentioned ? "rxCompletion" : "completion"
        let error = onError.map { Self.part($0, receivesError: true) }
        let completed = onCompleted.map { Self.part($0, receivesError: false) }
        var captures: [String] = []
        var capturedNames: [String: String] = [:]
        for capture in (error?.captures ?? []) + (completed?.captures ?? []) where !captures.contains(capture) {
            let name = Self.capturedName(capture)
            if let other = capturedNames[name] {
                conflict = "onError and onCompleted capture \(name) differently (\(other), \(capture)): merge by hand"
                return
            }
            capturedNames[name] = capture
            captures.append(capture)
        }
        let head = "{ " + (captures.isEmpty ? "" : "[\(captures.joined(separator: ", "))] ") + "\(completion) in"
        let errorPattern = error?.binding.map { ".failure(let \($0))" } ?? ".failure"
        let layout = [error, completed].compactMap { $0 }.first { $0.multiline }
        guard let layout else {
            // One line: `{ completion in if case .failure(let error) = completion { body } }`.
            switch (error, completed) {
            case (let error?, nil):
                text = head + " if case \(errorPattern) = \(completion) {\(Self.spaced(error.body))} }"
            case (nil, let completed?):
                text = head + " if case .finished = \(completion) {\(Self.spaced(completed.body))} }"
            case (let error?, let completed?):
                text =
                    head + " if case \(errorPattern) = \(completion) {\(Self.spaced(error.body))} else {"
                    + "\(Self.spaced(completed.body))} }"
            default: break
            }
            return
        }
        let indentation = layout.indentation
        let closing = layout.closing
        switch (error, completed) {
        case (let error?, nil):
            text =
                head + "\n\(indentation)guard case \(errorPattern) = \(completion) else { return }"
                + Self.lines(error, indentation) + closing + "}"
        case (nil, let completed?):
            text =
                head + "\n\(indentation)guard case .finished = \(completion) else { return }"
                + Self.lines(completed, indentation) + closing + "}"
        case (let error?, let completed?):
            let unit = Self.unit(indentation: indentation, closing: closing)
            text =
                head + "\n\(indentation)switch \(completion) {\n\(indentation)case \(errorPattern):"
                + Self.caseBody(error, indentation, unit) + "\n\(indentation)case .finished:"
                + Self.caseBody(completed, indentation, unit) + "\n\(indentation)}" + closing + "}"
        default: break
        }
    }

    private static func part(_ handler: ExprSyntax, receivesError: Bool) -> Part {
        guard let closure = handler.as(ClosureExprSyntax.self) else {
            // A handler given by name: call it.
            let call = receivesError ? "\(handler.trimmedDescription)(error)" : "\(handler.trimmedDescription)()"
            return Part(binding: receivesError ? "error" : nil, body: " \(call) ", multiline: false)
        }
        let parts = ClosureParts(closure)
        var binding: String?
        var body = parts.body
        if receivesError {
            if let name = parts.parameters?.first {
                binding = name == "_" ? nil : name
            } else if closure.usesAnonymousArguments {
                let name = mentions(closure.statements, "error") ? "rxError" : "error"
                binding = name
                body = ClosureParts.renamingAnonymousArgument(in: closure, to: name)
            }
        }
        return Part(
            captures: parts.captures, binding: binding, body: body, multiline: parts.isMultiline,
            indentation: parts.bodyIndentation, closing: parts.closingTrivia)
    }

    /// The body on lines of its own, at `indentation`.
    private static func lines(_ part: Part, _ indentation: String) -> String {
        if part.multiline { return part.body }
        let trimmed = part.body.trimmedBlanks()
        return trimmed.isEmpty ? "" : "\n\(indentation)\(trimmed)"
    }

    /// A `case`'s body: the statements one level deeper, or `break` when there are none.
    private static func caseBody(_ part: Part, _ indentation: String, _ unit: String) -> String {
        let body = lines(part, indentation)
        if body.trimmedBlanks().isEmpty || body.allSatisfy({ $0 == "\n" || $0 == " " || $0 == "\t" }) {
            return "\n\(indentation)\(unit)break"
        }
        return indentingContinuationLines("x" + body, by: unit).dropFirst().description
    }

    private static func spaced(_ body: String) -> String {
        let trimmed = body.trimmedBlanks()
        return trimmed.isEmpty ? " " : " \(trimmed) "
    }

    /// One level of indentation: the body's indentation beyond the closing brace's, or four spaces.
    private static func unit(indentation: String, closing: String) -> String {
        let closingIndentation = closing.split(separator: "\n", omittingEmptySubsequences: false).last ?? ""
        if indentation.count > closingIndentation.count && indentation.hasPrefix(closingIndentation) {
            return String(indentation.dropFirst(closingIndentation.count))
        }
        return "    "
    }

    /// `self` in `weak self`, `owner` in `unowned owner = self`.
    private static func capturedName(_ capture: String) -> String {
        let words = capture.split(whereSeparator: { $0 == " " || $0 == "=" }).map(String.init)
        let specifiers: Set<String> = ["weak", "unowned", "unowned(safe)", "unowned(unsafe)"]
        return words.first { !specifiers.contains($0) } ?? capture
    }
}
