import Dispatch

extension DispatchQueue {
    // Sendable as in Apple's Dispatch (its documentation lists the conformance). `@unchecked` because Linux's Dispatch
    // does not mark `DispatchWorkItemFlags` Sendable, though it is a plain option set of an integer; `DispatchQoS` is
    // a value and `DispatchGroup` a thread-safe class that Dispatch itself shares across threads.
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
    public struct SchedulerOptions: @unchecked Sendable {
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
