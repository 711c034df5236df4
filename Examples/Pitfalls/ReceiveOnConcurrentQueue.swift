// receive-on-concurrent-queue: values delivered concurrently and out of order; the sink's state races.
import Combine
import Dispatch

func log(_ lines: AnyPublisher<String, Never>) -> AnyCancellable {
    var count = 0
    return lines
        .receive(on: DispatchQueue.global())  // finding
        .sink { _ in count += 1 }
}

// Fixed: a serial queue.
let logQueue = DispatchQueue(label: "log")

func fixedLog(_ lines: AnyPublisher<String, Never>) -> AnyCancellable {
    lines.receive(on: logQueue).sink { print($0) }
}
