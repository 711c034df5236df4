import Foundation

extension RunLoop {
    /// Options that affect the operation of the run loop scheduler: there are none (as in Apple's API, the type has
    /// no public initializer; pass `nil`).
    ///
    /// ```swift
    /// RunLoop.main.schedule(options: nil) { print("soon") }
    /// ```
    ///
    /// **Thread safety:** a value type with no state; use it from any thread.
    public struct SchedulerOptions: Sendable {}
}
