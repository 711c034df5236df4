// main-queue-sync: called from a button action (the main thread), DispatchQueue.main.sync waits for itself.
import Dispatch

func refreshLabel(_ update: @escaping () -> Void) {
    DispatchQueue.main.sync {  // finding: deadlock on the main thread
        update()
    }
}

// Fixed: async. (Run directly when already on main, else main.sync, no longer traps on the main thread, but still
// waits for it from another thread: main-queue-sync-guarded reports that form.)
func fixedRefreshLabel(_ update: @escaping () -> Void) {
    DispatchQueue.main.async { update() }
}
