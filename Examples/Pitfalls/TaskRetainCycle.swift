// task-retain-cycle: self keeps the task, the task's closure keeps self, and the loop never ends: the object is
// never freed, and cancelling the task in deinit does not help (deinit never runs).
import Foundation

final class DownloadsBadge {
    var count = 0
    private var observation: Task<Void, Never>?

    func start(updates: AsyncStream<Int>) {
        observation = Task {  // finding
            for await value in updates {
                count = value  // the closure captures self (implicitly)
            }
        }
    }

    deinit { observation?.cancel() }
}

// Fixed: the task holds self weakly and lets go of it between values.
final class FixedDownloadsBadge {
    var count = 0
    private var observation: Task<Void, Never>?

    func start(updates: AsyncStream<Int>) {
        observation = Task { [weak self] in
            for await value in updates {
                guard let self else { return }
                self.count = value
            }
        }
    }

    deinit { observation?.cancel() }
}
