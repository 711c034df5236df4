// subscribe-on-twice: only the subscribe(on:) nearest the source matters; the other is dead code.
import Combine
import Dispatch

func load(_ work: AnyPublisher<Data, Error>, background: DispatchQueue) -> AnyPublisher<Data, Error> {
    work
        .subscribe(on: background)
        .map { $0 }
        .subscribe(on: DispatchQueue.main)  // finding
        .eraseToAnyPublisher()
}

// Fixed: subscribe once, and receive(on:) where the values are used.
func fixedLoad(_ work: AnyPublisher<Data, Error>, background: DispatchQueue) -> AnyPublisher<Data, Error> {
    work.subscribe(on: background).receive(on: DispatchQueue.main).eraseToAnyPublisher()
}
