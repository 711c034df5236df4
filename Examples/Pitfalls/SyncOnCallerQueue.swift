// sync-on-caller-queue: a helper waits with `.sync` on whatever queue its caller passes, so a caller already on that
// queue waits for itself: the main queue from the main thread traps, a serial queue from its own work hangs.
import Dispatch
import Foundation

enum Perform {
    static func andWait(on queue: DispatchQueue, _ work: () -> Void) {
        queue.sync(execute: work)  // finding
    }

    // Fixed: run the work directly when the caller is already on the main queue (a queue of your own: mark it with
    // `setSpecific` and check `DispatchQueue.getSpecific`), or hand the result back asynchronously.
    static func fixedAndWait(on queue: DispatchQueue, _ work: () -> Void) {
        if queue === DispatchQueue.main && Thread.isMainThread {
            work()
        } else {
            queue.sync(execute: work)
        }
    }
}
