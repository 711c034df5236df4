// eager-publisher: a function that starts the work sending to the PassthroughSubject it returns.

import UntangleLint
import XCTest

final class EagerPublisherTests: XCTestCase {
    let rule = EagerPublisher.description

    /// Nuke's DataPublisher and apexy's Client.request (the corpus of real fixes).
    func testWorkStartedBeforeReturningTheSubjectIsReported() {
        let source = """
            func data(_ load: @escaping () async throws -> Data) -> AnyPublisher<Data, Error> {
                let subject = PassthroughSubject<Data, Error>()
                Task {
                    do { subject.send(try await load()) } catch { subject.send(completion: .failure(error)) }
                }
                return subject.eraseToAnyPublisher()
            }
            func request(_ endpoint: Endpoint) -> AnyPublisher<Content, Error> {
                let subject = PassthroughSubject<Content, Error>()
                let progress = client.request(endpoint) { result in subject.send(result) }
                return subject.handleEvents(receiveCancel: { progress.cancel() }).eraseToAnyPublisher()
            }
            """
        XCTAssertEqual(findings(rule, in: source), ["2:9 eager-publisher", "9:9 eager-publisher"])
    }

    func testDeferredStateSubjectsAndWorkStartedOnSubscriptionAreNotReported() {
        let source = """
            func data() -> AnyPublisher<Data, Error> {
                Deferred {
                    let subject = PassthroughSubject<Data, Error>()
                    Task { subject.send(try await load()) }
                    return subject
                }.eraseToAnyPublisher()
            }
            func progress() -> AnyPublisher<Progress, Never> {
                let subject = CurrentValueSubject<Progress, Never>(.starting)
                Task { subject.send(await run()) }
                return subject.eraseToAnyPublisher()
            }
            func lazy() -> AnyPublisher<Int, Never> {
                let subject = PassthroughSubject<Int, Never>()
                let started = subject.handleEvents(receiveSubscription: { _ in start { subject.send($0) } })
                return subject.eraseToAnyPublisher()
            }
            func other() -> AnyPublisher<Int, Never> {
                let subject = PassthroughSubject<Int, Never>()
                Task { subject.send(1) }
                return relay.eraseToAnyPublisher()
            }
            """
        XCTAssertEqual(findings(rule, in: source), [])
    }
}
