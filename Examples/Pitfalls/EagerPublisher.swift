// eager-publisher: the download starts when `image(at:)` is called, before anyone subscribes; a cached image sent at
// once is dropped by the PassthroughSubject, and the subscriber waits forever.
import Combine
import Foundation

func image(at url: URL, loader: ImageLoader) -> AnyPublisher<Data, Error> {
    let subject = PassthroughSubject<Data, Error>()  // finding
    Task {
        do {
            subject.send(try await loader.data(at: url))
            subject.send(completion: .finished)
        } catch {
            subject.send(completion: .failure(error))
        }
    }
    return subject.eraseToAnyPublisher()
}

// Fixed: Deferred runs the body per subscription; the Future starts the download only then.
func fixedImage(at url: URL, loader: ImageLoader) -> AnyPublisher<Data, Error> {
    Deferred {
        Future { promise in
            Task {
                do { promise(.success(try await loader.data(at: url))) } catch { promise(.failure(error)) }
            }
        }
    }
    .eraseToAnyPublisher()
}
