// main-queue-sync: called from a button action (the main thread), DispatchQueue.main.sync waits for itself.
import Dispatch

func refreshLabel(_ update: @escaping () -> Void) {
    DispatchQueue.main.sync {  // finding: deadlock on the main thread
        update()
    }
}

// Fixed: async, or run directly when already on the main thread.
func fixedRefreshLabel(_ update: @escaping () -> Void) {
    if Thread.isMainThread {
        update()
    } else {
        DispatchQueue.main.sync { update() }
    }
}
