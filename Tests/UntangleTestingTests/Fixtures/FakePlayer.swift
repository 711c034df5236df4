import Foundation
import UntangleSync

/// A stand-in for AVPlayer's periodic time observer: `tick()` calls every observer with the next playhead time,
/// `end()` tells them playback ended. Callbacks run on the calling thread, outside the player's lock.
final class FakePlayer: @unchecked Sendable {
    private struct Observer {
        var onTick: (Double) -> Void
        var onEnd: () -> Void
    }

    private struct State {
        var observers: [Int: Observer] = [:]
        var nextToken = 0
        var time = 0.0
    }

    private let state = LockedBox(State())

    /// Registers an observer; the token removes it.
    func addPeriodicTimeObserver(onTick: @escaping (Double) -> Void, onEnd: @escaping () -> Void) -> Int {
        state.withLock { state in
            state.nextToken += 1
            state.observers[state.nextToken] = Observer(onTick: onTick, onEnd: onEnd)
            return state.nextToken
        }
    }

    func removeTimeObserver(_ token: Int) {
        let removed = state.withLock { $0.observers.removeValue(forKey: token) }
        _ = removed  // released after unlocking
    }

    var observerCount: Int { state.withLock { $0.observers.count } }

    /// Advances the playhead by one interval and calls every observer.
    func tick() {
        let (time, observers) = state.withLock { state -> (Double, [Observer]) in
            state.time += 0.5
            return (state.time, Array(state.observers.values))
        }
        for observer in observers { observer.onTick(time) }
    }

    /// Playback reached the end.
    func end() {
        let observers = state.withLock { Array($0.observers.values) }
        for observer in observers { observer.onEnd() }
    }
}
