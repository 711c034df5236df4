// The probe: runs one scenario given as the first argument, in its own process, and prints "OK ..." and exits 0
// when a safe scenario completes; an unsafe scenario is expected to be stopped by Swift's own isolation check, which
// the Swift 6 compiler put into the main-actor closure (Untangle is a Swift 5-mode module, as Apple's Combine is).
import Dispatch
import Foundation
import Swift6Client
import Untangle

let scenario = CommandLine.arguments.dropFirst().first ?? "safe"
let service = CounterService()
let count = 200

/// Runs the main run loop (which drains the main queue) until `done` or 10 seconds.
func runMain(until done: () -> Bool) {
    let deadline = Date().addingTimeInterval(10)
    while !done() && Date() < deadline {
        _ = RunLoop.main.run(mode: .default, before: Date().addingTimeInterval(0.01))
    }
}

func finish(_ line: String) -> Never {
    print(line)
    exit(0)
}

func sendFromTaskGroup() {
    Task.detached { await service.burst(count) }
}

switch scenario {
case "safe":
    let model = SafeViewModel(service: service)
    // Let the `values` task subscribe before sending.
    let start = Date()
    runMain { Date().timeIntervalSince(start) > 0.1 }
    sendFromTaskGroup()
    runMain { model.total == count && model.label == "received 1" && model.events.count == count }
    guard model.total == count, model.events.count == count else { fatalError("safe: total \(model.total)") }
    model.stop()
    finish("OK safe total=\(model.total) label=\(model.label) values=\(model.fromValues)")
case "nonisolated":
    let tally = Tally(service: service)
    sendFromTaskGroup()
    runMain { tally.total == count }
    guard tally.total == count else { fatalError("nonisolated: total \(tally.total)") }
    finish("OK nonisolated total=\(tally.total)")
case "sendable":
    // `@Sendable` closures formed in `@MainActor` code are not isolated: Swift 6 inserts no check, they run on the
    // sending threads.
    let model = SendableClosuresModel(service: service)
    sendFromTaskGroup()
    runMain { model.total == count && model.seen.value == count }
    guard model.total == count, model.seen.value == count else { fatalError("sendable: total \(model.total)") }
    finish("OK sendable total=\(model.total) seen=\(model.seen.value)")
default:
    guard let pattern = UnsafeViewModel.Pattern(rawValue: scenario) else { fatalError("unknown scenario \(scenario)") }
    let model = UnsafeViewModel(service: service, pattern: pattern)
    sendFromTaskGroup()
    runMain { false }
    withExtendedLifetime(model) {}
    finish("NOT STOPPED: \(scenario)")
}
