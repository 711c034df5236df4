// The configuration file `.untangle-lint.json` in the linted tree (or `--config FILE`): which rules run, their
// severities, which paths are linted. Unknown keys and unknown rule ids are errors (exit status 2), never ignored.

import Foundation

/// The parsed configuration file.
package struct Configuration: Sendable, Equatable {
    /// Rules turned off (ids).
    package var disabledRules: Set<String> = []
    /// Rules that are off by default, turned on (ids).
    package var enabledRules: Set<String> = []
    /// Severity overrides: rule id → `warning` / `error`.
    package var severities: [String: Severity] = [:]
    /// Paths (relative to the configuration file's folder) to lint; empty means everything given.
    package var included: [String] = []
    /// Paths (relative to the configuration file's folder) never linted.
    package var excluded: [String] = []
    /// The folder paths are relative to.
    package var root: String = "."

    package static let fileName = ".untangle-lint.json"

    package init() {}

    /// Parses a configuration file's text, checking every key and rule id.
    package init(json data: Data, root: String) throws(LintError) {
        self.root = root
        let object: Any
        do {
            object = try JSONSerialization.jsonObject(with: data)
        } catch {
            throw .usage("invalid configuration: not valid JSON (\(error.localizedDescription))")
        }
        guard let dictionary = object as? [String: Any] else {
            throw .usage("invalid configuration: the top level must be a JSON object")
        }
        let known: Set<String> = ["disabled_rules", "enabled_rules", "severity", "included", "excluded"]
        if let unknown = dictionary.keys.sorted().first(where: { !known.contains($0) }) {
            throw .usage(
                "invalid configuration: unknown key '\(unknown)' (known: \(known.sorted().joined(separator: ", ")))")
        }
        disabledRules = Set(try Self.strings(dictionary["disabled_rules"], key: "disabled_rules"))
        enabledRules = Set(try Self.strings(dictionary["enabled_rules"], key: "enabled_rules"))
        included = try Self.strings(dictionary["included"], key: "included")
        excluded = try Self.strings(dictionary["excluded"], key: "excluded")
        if let severity = dictionary["severity"] {
            guard let map = severity as? [String: String] else {
                throw .usage("invalid configuration: 'severity' must map rule ids to \"warning\" or \"error\"")
            }
            for (id, value) in map {
                guard let level = Severity(rawValue: value) else {
                    throw .usage("invalid configuration: severity of '\(id)' must be \"warning\" or \"error\"")
                }
                severities[id] = level
            }
        }
        for id in disabledRules.union(enabledRules).union(severities.keys).sorted() where Rules.named(id) == nil {
            throw .usage("invalid configuration: unknown rule '\(id)' (see `untangle lint --rules`)")
        }
    }

    private static func strings(_ value: Any?, key: String) throws(LintError) -> [String] {
        guard let value else { return [] }
        guard let strings = value as? [String] else {
            throw .usage("invalid configuration: '\(key)' must be an array of strings")
        }
        return strings
    }

    /// The rules to run under this configuration.
    package var ruleSet: RuleSet {
        RuleSet(
            rules: Rules.all.filter {
                ($0.enabledByDefault || enabledRules.contains($0.id)) && !disabledRules.contains($0.id)
            },
            severities: severities)
    }
}

/// What stops a lint run before it starts: bad usage, an unreadable path, an invalid configuration (exit status 2).
package enum LintError: Error, Equatable {
    case usage(String)

    package var message: String {
        switch self {
        case .usage(let text): text
        }
    }
}
