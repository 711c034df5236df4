// main-queue-sync-guarded: a getter read from any thread waits for the main thread's result behind a
// Thread.isMainThread check. A worker that runs it while the main thread waits for that worker (a lock, a queue.sync,
// the same static initializer) deadlocks: each waits for the other.
import Dispatch
import Foundation

final class DebugInfo {
    private var state: [String: String] = [:]

    var parameters: [String: String] {
        if Thread.isMainThread { return state }
        return DispatchQueue.main.sync { state }  // finding
    }

    // Fixed: hop with async and hand the result to a completion; nothing waits for the main thread.
    func fixedParameters(_ completion: @escaping ([String: String]) -> Void) {
        DispatchQueue.main.async { completion(self.state) }
    }
}
