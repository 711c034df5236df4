// discarded-cancellable: the AnyCancellable is released at once, which cancels the subscription.
import Combine

final class Notifier {
    func listen(to events: AnyPublisher<String, Never>) {
        _ = events.sink { print($0) }  // finding: nothing arrives after this line
    }

    // Fixed: keep it as long as the values matter.
    private var subscription: AnyCancellable?

    func fixedListen(to events: AnyPublisher<String, Never>) {
        subscription = events.sink { print($0) }
    }
}
