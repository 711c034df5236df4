/// Stops the program: a state machine was told of an event its phase cannot have, which only a bug in the code
/// driving it can cause (a step taken by a thread that does not own the loop, a scheduled action counted twice, a
/// timer handed over for no timer). Continuing would deliver a signal twice, lose one, or call a subscriber after its
/// end.
///
/// The message names the machine, the event and the phase, as `"BufferStateMachine: nextStep with no mover"`.
/// Events that a correct program can cause (a value after a cancel, a second upstream subscription, a stale timer)
/// are answered, never trapped.
///
/// ```swift
/// guard case .moving = mover else { impossibleEvent("BufferStateMachine: nextStep with no mover") }
/// ```
///
/// **Thread safety:** callable from any thread; it does not return.
//
// `fatalError`, not `preconditionFailure`: in an optimized build `preconditionFailure` traps without printing its
// message (checked with `swiftc -O`), and the message is the one clue a crash report from a release build gives.
// Out of line, so the callers' fast paths carry only the branch to it.
@usableFromInline
@inline(never)
package func impossibleEvent(_ message: StaticString, file: StaticString = #fileID, line: UInt = #line) -> Never {
    fatalError("\(message)", file: file, line: line)
}

/// Stops the program as the `StaticString` form does, with a message built from the
/// machine's state (the index, the phase, the inner's id): `impossibleEvent("FanInUpstreams: \(event)(at: \(index))")`.
///
/// ```swift
/// guard index < count else { impossibleEvent("FanInUpstreams: request(at: \(index)) with \(count) upstreams") }
/// ```
///
/// **Thread safety:** callable from any thread; it does not return.
@usableFromInline
@inline(never)
package func impossibleEvent(_ message: String, file: StaticString = #fileID, line: UInt = #line) -> Never {
    fatalError(message, file: file, line: line)
}
