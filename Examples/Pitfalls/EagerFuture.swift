// eager-future: the request is sent when `save()` is called, even if nobody subscribes, and only once.
import Combine

func save(_ record: String, api: API) -> AnyPublisher<Void, Error> {
    Future { promise in  // finding
        api.upload(record) { promise($0) }
    }
    .eraseToAnyPublisher()
}

// Fixed: Deferred creates the Future (and starts the upload) per subscription.
func fixedSave(_ record: String, api: API) -> AnyPublisher<Void, Error> {
    Deferred {
        Future { promise in api.upload(record) { promise($0) } }
    }
    .eraseToAnyPublisher()
}
