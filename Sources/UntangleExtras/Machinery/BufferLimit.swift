/// How many values a ``BufferedEmitter`` keeps for its subscriber beyond what the subscriber has requested.
///
/// **Demand:** values covered by demand are never dropped; the limit applies only to the values waiting for demand.
/// **Thread safety:** a value.
enum BufferLimit: Sendable, Equatable {
    /// Keep every value until it is requested.
    case unbounded
    /// Keep the newest `n` values waiting for demand; an older waiting value is dropped to make room.
    case newest(Int)
    /// Keep the oldest `n` values waiting for demand; a newer value is dropped when they fill the buffer.
    case oldest(Int)
}
