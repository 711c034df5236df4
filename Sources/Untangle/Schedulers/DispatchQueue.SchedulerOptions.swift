import Dispatch

extension DispatchQueue {
    /// Options that affect the operation of the dispatch queue scheduler.
    ///
    /// `qos` and `flags` apply to every form of `schedule`; `group` only to `schedule(options:_:)` (the immediate
    /// form, which uses `async(group:qos:flags:execute:)`).
    ///
    /// ```swift
    /// let group = DispatchGroup()
    /// DispatchQueue.global().schedule(options: .init(qos: .userInitiated, group: group)) { print("work") }
    /// ```
    ///
    /// **Thread safety:** a value type; use it from any thread.
    public struct SchedulerOptions {
        /// The dispatch queue quality of service.
        public var qos: DispatchQoS

        /// The dispatch queue work item flags.
        public var flags: DispatchWorkItemFlags

        /// The dispatch group, if any, that should be used for performing actions.
        public var group: DispatchGroup?

        /// Creates dispatch queue scheduler options.
        public init(qos: DispatchQoS = .unspecified, flags: DispatchWorkItemFlags = [], group: DispatchGroup? = nil) {
            self.qos = qos
            self.flags = flags
            self.group = group
        }
    }
}
