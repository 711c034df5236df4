// `untangle stress`: runs the checks in Scenarios.swift, each on its own thread under a watchdog, shows progress,
// prints a results table and exits with status 1 if any check saw a violation.

import ArgumentParser
import Dispatch
import Foundation
import UntangleSync

struct StressCommand: ParsableCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            commandName: "stress",
            abstract: "Run Untangle's concurrency guarantees as live checks.",
            discussion: """
                Each check replays a concurrency scenario (Set<AnyCancellable> races, a starved GCD pool, \
                concurrent and reentrant demand, concurrent and cross-wired sends, cancellation during delivery) \
                and verifies what Untangle promises: nothing lost, nothing duplicated, deliveries never overlap, \
                nothing waits for another thread's callout. Every wait has a deadline: a deadlock fails its check \
                instead of hanging the tool. Exit status 1 if any check fails.

                --seed makes a run's inputs reproducible (thread start order, jitter, request sizes, cancel \
                points); the scheduler still picks the interleaving.

                \(Scenarios.helpText)
                """)
    }

    @Option(help: "Threads per check (N).")
    var threads = 8

    @Option(help: "Base amount of work per check (M); see each check's scaling below.")
    var iterations = 10_000

    @Option(help: "Seed for the run's random choices (default: random; the seed used is printed).")
    var seed: UInt64?

    @Option(help: ArgumentHelp("Run only this check (repeatable).", valueName: "name"))
    var only: [String] = []

    @Flag(help: "List the checks and exit.")
    var list = false

    @Option(help: "Seconds after which a check that has not finished fails as hung.")
    var timeout = 120

    func validate() throws {
        guard (1...1024).contains(threads) else {
            throw ValidationError("--threads must be between 1 and 1024.")
        }
        guard iterations >= 1 else {
            throw ValidationError("--iterations must be at least 1.")
        }
        guard timeout >= 1 else {
            throw ValidationError("--timeout must be at least 1 second.")
        }
        let known = Set(Scenarios.all.map(\.name))
        if let unknown = only.first(where: { !known.contains($0) }) {
            throw ValidationError(
                "No check named '\(unknown)'. Checks: \(Scenarios.all.map(\.name).joined(separator: ", ")).")
        }
    }

    func run() throws {
        var terminal = Terminal()
        if list {
            for scenario in Scenarios.all {
                terminal.line("\(scenario.name)\n    \(scenario.proves)\n    work: \(scenario.scaling)")
            }
            return
        }

        let seed = seed ?? UInt64.random(in: 0...UInt64.max)
        let selected = Scenarios.all.filter { only.isEmpty || only.contains($0.name) }
        terminal.line(
            "untangle stress: \(selected.count) checks, --threads \(threads) --iterations \(iterations) "
                + "--seed \(seed)")

        var results: [CheckResult] = []
        let started = monotonicSeconds()
        for (index, scenario) in selected.enumerated() {
            let position = "[\(index + 1)/\(selected.count)]"
            let result = runCheck(scenario, seed: seed, position: position, terminal: &terminal)
            terminal.finished(position: position, result)
            results.append(result)
        }

        terminal.table(results)
        let failed = results.filter { !$0.passed }.count
        terminal.line(
            "\n\(results.count - failed) of \(results.count) checks passed in \(seconds(monotonicSeconds() - started))"
                + " (seed \(seed); rerun with --seed \(seed))")
        if failed > 0 {
            throw ExitCode(1)
        }
    }

    /// Runs one check on a dedicated thread and waits for it, redrawing its progress bar, until its watchdog
    /// fires: `timeout` seconds plus a grace period (2-15 s), so that the check's own deadline (which produces a
    /// precise message) normally fires first. A check abandoned by the watchdog keeps its thread (it cannot be
    /// stopped safely); its cleanups run so that it cannot starve the checks after it.
    private func runCheck(
        _ scenario: Scenario, seed: UInt64, position: String, terminal: inout Terminal
    ) -> CheckResult {
        let workload = scenario.workload(iterations, threads)
        let start = DispatchTime.now()
        let startSeconds = monotonicSeconds()
        let context = CheckContext(
            name: scenario.name, iterations: iterations, threads: threads, seed: seed,
            deadline: start + .seconds(timeout), progress: CheckProgress(total: workload.units),
            violations: Violations(), cleanups: Cleanups())

        let outcome = LockedBox<Result<String?, CheckFailure>?>(nil)
        let done = DispatchSemaphore(value: 0)
        let thread = Thread {
            let result: Result<String?, CheckFailure>
            do {
                result = .success(try scenario.run(context))
            } catch let failure as CheckFailure {
                result = .failure(failure)
            } catch {
                result = .failure(CheckFailure("\(error)"))
            }
            context.cleanups.runAll()
            outcome.withLock { $0 = result }
            done.signal()
        }
        thread.name = "untangle-\(scenario.name)"
        // Room for deep (but bounded) nesting; reentrant-request fails on stack growth long before this.
        thread.stackSize = 16 << 20
        thread.start()

        let grace = max(2, min(15, timeout / 4))
        let watchdog = start + .seconds(timeout + grace)
        var abandoned = false
        while done.wait(timeout: .now() + .milliseconds(100)) == .timedOut {
            terminal.progress(
                position: position, name: scenario.name, fraction: context.progress.fraction,
                elapsed: monotonicSeconds() - startSeconds)
            if DispatchTime.now() >= watchdog {
                abandoned = true
                context.cleanups.runAll()
                break
            }
        }
        let elapsed = monotonicSeconds() - startSeconds

        var failures: [String] = []
        var note: String?
        if abandoned {
            failures.append("watchdog: no result after \(timeout + grace) s (deadlock or livelock?)")
        } else {
            switch outcome.withLock({ $0 }) {
            case .success(let message)?:
                note = message
            case .failure(let failure)?:
                failures.append(failure.detail)
            case nil:
                failures.append("internal: the check finished without a result")
            }
        }
        if let violations = context.violations.summary {
            failures.append(violations)
        }
        return CheckResult(
            name: scenario.name, units: workload.units, threads: workload.threads, seconds: elapsed,
            failure: failures.isEmpty ? nil : failures.joined(separator: "; "), note: note)
    }
}
