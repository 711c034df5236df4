import Untangle
import XCTest

/// Subscribes a fresh `Sink` to `publisher`, runs `drive`, cancels the sink if asked, and reports whether the sink
/// was released once the test let go of it (nothing in the chain still holds it).
func sinkIsReleased<P: Publisher>(_ publisher: P, cancel: Bool, drive: () -> Void = {}) -> Bool {
    weak var weakSink: Subscribers.Sink<P.Output, P.Failure>?
    do {
        let sink = Subscribers.Sink<P.Output, P.Failure>(receiveCompletion: { _ in }, receiveValue: { _ in })
        weakSink = sink
        publisher.subscribe(sink)
        drive()
        if cancel { sink.cancel() }
    }
    return weakSink == nil
}

/// Subscribes a fresh `Recorder` (which keeps its subscription) to `publisher`, runs `drive` with it, and reports
/// whether the recorder was released once the test let go of it: the operator dropped its downstream.
func recorderIsReleased<P: Publisher>(
    _ publisher: P, initialDemand: Subscribers.Demand? = .unlimited, drive: (Recorder<P.Output, P.Failure>) -> Void
) -> Bool {
    weak var weakRecorder: Recorder<P.Output, P.Failure>?
    do {
        let recorder = Recorder<P.Output, P.Failure>(initialDemand: initialDemand)
        weakRecorder = recorder
        publisher.subscribe(recorder)
        drive(recorder)
    }
    return weakRecorder == nil
}

/// The `TestError` a `try` operator failed with, if its single completion is one.
func thrownError<Value>(_ recorder: Recorder<Value, Error>) -> TestError? {
    guard recorder.completions.count == 1, case .failure(let error as TestError) = recorder.completions[0] else {
        return nil
    }
    return error
}

/// The events of a recorder with `Error` failures, with errors rendered as text (`Error` is not `Equatable`).
func describe<Value>(_ recorder: Recorder<Value, Error>) -> [String] {
    recorder.events.map(\.description)
}

/// Subscribes to `publisher` a `Recorder` that asks for `.unlimited` and cancels inside every `receive(_:)`, runs
/// `drive` (which plays the upstream), and returns the recorder: nothing may reach it after the cancel.
func recorderCancellingInsideEachValue<P: Publisher>(_ publisher: P, drive: () -> Void) -> Recorder<P.Output, P.Failure>
{
    let recorder = Recorder<P.Output, P.Failure>(initialDemand: .unlimited) { recorder, _ in
        recorder.cancel()
        return .none
    }
    publisher.subscribe(recorder)
    drive()
    return recorder
}
