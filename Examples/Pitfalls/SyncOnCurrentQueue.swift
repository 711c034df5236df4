// sync-on-current-queue: `.sync` onto the serial queue the closure already runs on waits for itself forever.
import Dispatch

final class Cache {
    private let queue = DispatchQueue(label: "cache")
    private var values: [String: Int] = [:]

    func increment(_ key: String) {
        queue.async {
            let old = self.queue.sync { self.values[key] }  // finding: deadlock
            self.values[key] = (old ?? 0) + 1
        }
    }

    // Fixed: already on the queue, read directly.
    func fixedIncrement(_ key: String) {
        queue.async {
            self.values[key] = (self.values[key] ?? 0) + 1
        }
    }
}
