// blocking-wait-in-pool: a semaphore waited on inside pool work, in a loop. Each blocked item makes GCD start
// another thread (thread explosion); at the pool's limit, the work that would signal never runs.
import Dispatch

func downloadAll(_ urls: [String], fetch: @escaping (String, @escaping () -> Void) -> Void) {
    let semaphore = DispatchSemaphore(value: 0)
    for url in urls {
        DispatchQueue.global().async {
            fetch(url) { semaphore.signal() }
            semaphore.wait()  // finding: in a loop, thread explosion
        }
    }
}

func loadConfiguration() async -> String {
    let group = DispatchGroup()
    group.enter()
    DispatchQueue.global().async { group.leave() }
    group.wait()  // finding: blocks a cooperative-pool thread
    return "done"
}

// Fixed: no waiting; completion handlers and `notify`.
func fixedDownloadAll(_ urls: [String], fetch: @escaping (String, @escaping () -> Void) -> Void,
                      done: @escaping () -> Void) {
    let group = DispatchGroup()
    for url in urls {
        group.enter()
        fetch(url) { group.leave() }
    }
    group.notify(queue: .main, execute: done)
}
