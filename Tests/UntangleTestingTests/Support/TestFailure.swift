/// The error the tests fail publishers with.
struct TestFailure: Error, Equatable, CustomStringConvertible {
    var code = 1
    var description: String { "TestFailure(\(code))" }
}
