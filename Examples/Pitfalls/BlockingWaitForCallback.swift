// blocking-wait-for-callback: an asynchronous API made synchronous, in a getter. Whoever reads `credentials`
// blocks until the vault's callback runs: the UI freezes when that is the main thread, and if the vault calls back on
// the caller's queue the callback never runs.
import Foundation

struct CredentialsLoader {
    let vault: Vault

    var credentials: [String] {
        let semaphore = DispatchSemaphore(value: 0)
        var result: [String] = []
        vault.accounts { accounts in
            result = accounts
            semaphore.signal()
        }
        semaphore.wait()  // finding
        return result
    }
}

// Fixed: pass the result on in a completion handler.
struct FixedCredentialsLoader {
    let vault: Vault

    func loadCredentials(completion: @escaping ([String]) -> Void) {
        vault.accounts { accounts in
            completion(accounts)
        }
    }
}
