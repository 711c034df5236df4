// The schedulers family: MainScheduler.instance keeps its in-line timing through MainThreadScheduler, dispatch-queue
// schedulers become their queues, observe(on:)/observeOn/subscribeOn become receive(on:)/subscribe(on:).

import UntangleLint
import XCTest

final class SchedulerRulesTests: XCTestCase {
    func testSchedulers() {
        assertMigrates(
            "import Foundation\n"
                + rxFile(
                    """
                    let main = MainScheduler.instance
                    let deferred = MainScheduler.asyncInstance
                    let pool = ConcurrentDispatchQueueScheduler(qos: .background)
                    let wrapped = ConcurrentDispatchQueueScheduler(queue: queue)
                    let serial = SerialDispatchQueueScheduler(qos: .utility)
                    let named = SerialDispatchQueueScheduler(internalSerialQueueName: "db")
                    let current = CurrentThreadScheduler.instance
                    let operations = OperationQueueScheduler(operationQueue: queue)

                    """),
            to: "import Foundation\n"
                + untangledFile(
                    """
                    let main = MainThreadScheduler.shared
                    let deferred = DispatchQueue.main
                    let pool = DispatchQueue.global(qos: .background)
                    let wrapped = queue
                    let serial = DispatchQueue(label: "untangle.serial", qos: .utility)
                    let named = DispatchQueue(label: "db")
                    let current = ImmediateScheduler.shared
                    let operations = queue

                    """))
    }

    func testObserveOnAndSubscribeOn() {
        assertMigrates(
            rxFile(
                """
                let a = items.observe(on: MainScheduler.instance)
                let b = items.observeOn(MainScheduler.instance)
                let c = items.subscribeOn(scheduler)
                let d = items.subscribe(on: scheduler)

                """),
            to: untangledFile(
                """
                let a = items.receive(on: MainThreadScheduler.shared)
                let b = items.receive(on: MainThreadScheduler.shared)
                let c = items.subscribe(on: scheduler)
                let d = items.subscribe(on: scheduler)

                """))
    }
}
