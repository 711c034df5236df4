import Untangle

/// A publisher under verification together with the handles that drive it: `drive` makes it produce values (for
/// hot publishers such as subjects), `finish` makes it complete.
///
/// ```swift
/// let verifier = PublisherVerifier(options: VerifierOptions(temperature: .hot, concurrentDrive: true)) { () -> VerifierFixture<Publishers.Map<PassthroughSubject<Int, Never>, Int>> in
///     let subject = PassthroughSubject<Int, Never>()
///     return VerifierFixture(subject.map { $0 * 2 }, drive: { thread in subject.send(thread) },
///                            finish: { subject.send(completion: .finished) })
/// }
/// ```
///
/// **Demand:** `drive` should try to produce at least one value per call; the publisher decides what reaches the
/// subscriber (the verifier checks it never exceeds demand).
/// **Thread safety:** the verifier calls `drive` and `finish` from its own threads, `drive` from several at once
/// when ``VerifierOptions/concurrentDrive`` is true. It passes the index of the calling thread (0 when only one).
public struct VerifierFixture<P: Publisher> {
    /// The publisher under verification.
    public var publisher: P
    /// Makes the publisher produce (at least) one value; called with the verifier thread's index.
    public var drive: ((Int) -> Void)?
    /// Makes the publisher complete.
    public var finish: (() -> Void)?

    /// Creates a fixture.
    public init(_ publisher: P, drive: ((Int) -> Void)? = nil, finish: (() -> Void)? = nil) {
        self.publisher = publisher
        self.drive = drive
        self.finish = finish
    }
}
