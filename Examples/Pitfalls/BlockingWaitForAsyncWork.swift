// blocking-wait-for-async-work: a synchronous method that blocks its caller until a Task ends. A main-run-loop timer
// calls `flushSync()`: the main thread stops until the flush is done, and if the flush needs the main actor it never
// is: a deadlock.
import Foundation

final class EventsClient {
    @objc func flushSync() {
        let semaphore = DispatchSemaphore(value: 0)
        Task {
            await self.flush()
            semaphore.signal()
        }
        semaphore.wait()  // finding
    }

    func flush() async {}
}

// Fixed: start the flush and return; callers that need it done await it.
final class FixedEventsClient {
    @objc func flushSoon() {
        Task { await self.flush() }
    }

    func flush() async {}
}
