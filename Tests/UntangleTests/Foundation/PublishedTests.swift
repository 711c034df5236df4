import Foundation
import Untangle
import UntangleSync
import XCTest

private final class Weather {
    @Published var temperature: Double
    @Published var label = "mild"
    init(temperature: Double) { self.temperature = temperature }
}

final class PublishedTests: XCTestCase {
    func testProjectedPublisherSendsTheCurrentValueThenEachNewValue() {
        let weather = Weather(temperature: 20)
        let recorder = Recorder<Double, Never>()
        weather.$temperature.subscribe(recorder)
        weather.temperature = 25
        weather.temperature = 30
        XCTAssertEqual(recorder.values, [20, 25, 30])
        XCTAssertEqual(weather.temperature, 30)
    }

    func testSubscribersReceiveTheNewValueBeforeThePropertyChanges() {
        let weather = Weather(temperature: 1)
        var seen: [String] = []
        let cancellable = weather.$temperature.sink { [unowned weather] new in
            seen.append("new \(new), property \(weather.temperature)")
        }
        weather.temperature = 2
        XCTAssertEqual(seen, ["new 1.0, property 1.0", "new 2.0, property 1.0"])
        XCTAssertEqual(weather.temperature, 2)
        cancellable.cancel()
    }

    func testDemandIsHonouredAndTheLatestValueWaits() {
        let weather = Weather(temperature: 0)
        let recorder = Recorder<Double, Never>(initialDemand: .max(1))
        weather.$temperature.subscribe(recorder)
        weather.temperature = 1
        weather.temperature = 2
        XCTAssertEqual(recorder.values, [0])
        recorder.request(.max(1))
        XCTAssertEqual(recorder.values, [0, 2], "without demand only the latest value is kept, as CurrentValueSubject")
    }

    func testInitialValueInitializerAndWrappedValueInitializer() {
        var published = Published(initialValue: 3)
        let recorder = Recorder<Int, Never>()
        published.projectedValue.subscribe(recorder)
        XCTAssertEqual(recorder.values, [3])
        var other = Published(wrappedValue: "a")
        let strings = Recorder<String, Never>()
        other.projectedValue.subscribe(strings)
        XCTAssertEqual(strings.values, ["a"])
    }

    func testAssignToPublishedSetsThePropertyAndPublishesIt() {
        let weather = Weather(temperature: 0)
        let subject = PassthroughSubject<String, Never>()
        let recorder = Recorder<String, Never>()
        weather.$label.subscribe(recorder)
        subject.assign(to: &weather.$label)
        subject.send("warm")
        subject.send("hot")
        XCTAssertEqual(weather.label, "hot")
        XCTAssertEqual(recorder.values, ["mild", "warm", "hot"])
    }

    func testAssignToPublishedIsCancelledWhenTheObjectGoesAwayAndMakesNoCycle() {
        let cancelled = LockedBox(false)
        let subject = PassthroughSubject<Double, Never>()
        weak var weakWeather: Weather?
        do {
            let weather = Weather(temperature: 0)
            weakWeather = weather
            subject.handleEvents(receiveCancel: { cancelled.withLock { $0 = true } }).assign(to: &weather.$temperature)
            subject.send(4)
            XCTAssertEqual(weather.temperature, 4)
        }
        XCTAssertNil(weakWeather, "assign(to:) does not keep the object alive")
        XCTAssertTrue(cancelled.withLock { $0 }, "the subscription ends with the property")
        subject.send(5)  // nobody left: nothing happens
    }

    func testAssignToPublishedFromAJustSetsAtOnce() {
        let weather = Weather(temperature: 0)
        Just(12.5).assign(to: &weather.$temperature)
        XCTAssertEqual(weather.temperature, 12.5)
    }
}

// Scenarios of bugs other Combine implementations shipped and later fixed.
extension PublishedTests {
    // cx-org/CombineX 5588e87 (issue 10): subscribing to a @Published property from inside one of its own
    // subscribers' receive (an object built when a value arrives) was a simultaneous access to the property.
    func testSubscribingFromInsideAReceiveOfTheSamePropertyGetsTheNewValueOnce() {
        let weather = Weather(temperature: 0)
        let outer = Recorder<Double, Never>()
        let nested = Recorder<Double, Never>()
        let subscribeNested = Recorder<Double, Never>(onValue: { _, value in
            if value == 1 { weather.$temperature.subscribe(nested) }
            return .none
        })
        weather.$temperature.subscribe(outer)
        weather.$temperature.subscribe(subscribeNested)
        weather.temperature = 1
        weather.temperature = 2
        XCTAssertEqual(outer.values, [0, 1, 2])
        XCTAssertEqual(subscribeNested.values, [0, 1, 2])
        XCTAssertEqual(nested.values, [1, 2])
        XCTAssertEqual(weather.temperature, 2)
    }
}
