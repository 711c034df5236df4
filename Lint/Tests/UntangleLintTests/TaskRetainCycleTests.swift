// task-retain-cycle: a Task stored on self whose closure keeps self, looping until cancelled or made inside a closure
// that held self weakly.

import UntangleLint
import XCTest

final class TaskRetainCycleTests: XCTestCase {
    let rule = TaskRetainCycle.description

    /// Element X's invites screen (the corpus of real fixes, C046): inside a `[weak self]` sink, after `guard let
    /// self`, a task stored on self captures the strong self again.
    func testATaskStoredOnSelfInsideAWeakSelfClosureIsReported() {
        let source = """
            final class InvitesViewModel {
                var fetchTask: Task<Void, Never>?
                var cancellables = Set<AnyCancellable>()
                func setUp(provider: Provider) {
                    provider.rooms.sink { [weak self] rooms in
                        guard let self else { return }
                        fetchTask = Task {
                            let invites = await self.build(rooms)
                            self.state = invites
                        }
                    }
                    .store(in: &cancellables)
                }
            }
            """
        XCTAssertEqual(findings(rule, in: source), ["7:25 task-retain-cycle"])
    }

    /// A loop over a stream never ends on its own: the object keeps the task, the task keeps the object, for ever.
    /// Members used without `self.` count (a Task's closure captures self implicitly); `self.x =`, subscripts and
    /// `Task.detached` too.
    func testATaskStoredOnSelfThatLoopsUntilCancelledIsReported() {
        let source = """
            final class Observer {
                var task: Task<Void, Never>?
                var tasks: [String: Task<Void, Never>] = [:]
                var count = 0
                func start(stream: AsyncStream<Int>) {
                    task = Task {
                        for await value in stream { count += value }
                    }
                    self.task = Task.detached {
                        while !Task.isCancelled { await self.poll() }
                    }
                    tasks["a"] = Task(priority: .background) {
                        while true { handle() }
                    }
                }
                func poll() async {}
                func handle() {}
            }
            """
        XCTAssertEqual(
            findings(rule, in: source), ["6:16 task-retain-cycle", "9:26 task-retain-cycle", "12:22 task-retain-cycle"])
    }

    /// The fixes, and tasks that are not cycles: `[weak self]` in the task, a task that ends on its own outside any
    /// weak-self closure, a task not stored on self (a local, a struct), one that does not use self, and a name
    /// that a local or parameter shadows.
    func testWeakTasksFiniteTasksLocalTasksAndShadowedNamesAreNotReported() {
        let source = """
            final class Screen {
                var task: Task<Void, Never>?
                var count = 0
                var cancellables = Set<AnyCancellable>()
                func load(stream: AsyncStream<Int>) {
                    task = Task { [weak self] in
                        for await value in stream { self?.count += value }
                    }
                    task = Task { await self.refresh() }
                    let local = Task { for await value in stream { count += value } }
                    _ = local
                    task = Task { for await value in stream { print(value) } }
                    publisher.sink { [weak self] _ in
                        guard let self else { return }
                        self.task = Task { [weak self] in await self?.refresh() }
                    }
                    .store(in: &cancellables)
                }
                func shadow(count: Int, stream: AsyncStream<Int>) {
                    task = Task { for await value in stream { print(value + count) } }
                }
                func refresh() async {}
            }
            struct Model {
                var task: Task<Void, Never>?
                var count = 0
                mutating func start(stream: AsyncStream<Int>) {
                    task = Task { for await value in stream { print(value, count) } }
                }
            }
            """
        XCTAssertEqual(findings(rule, in: source), [])
    }
}
