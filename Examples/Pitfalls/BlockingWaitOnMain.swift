// blocking-wait-on-main: the view controller makes an asynchronous load synchronous; the main thread stops until the
// store answers, and if the store answers on the main queue it never does (a deadlock).
import UIKit

final class SettingsViewController: UIViewController {
    let store = SettingsStore()
    let semaphore = DispatchSemaphore(value: 0)
    var settings: [String] = []

    override func viewDidLoad() {
        super.viewDidLoad()
        store.load { loaded in
            self.settings = loaded
            self.semaphore.signal()
        }
        semaphore.wait()  // finding
    }
}

// Fixed: continue in the completion handler.
final class FixedSettingsViewController: UIViewController {
    let store = SettingsStore()
    var settings: [String] = []

    override func viewDidLoad() {
        super.viewDidLoad()
        store.load { [weak self] loaded in
            DispatchQueue.main.async { self?.settings = loaded }
        }
    }
}
