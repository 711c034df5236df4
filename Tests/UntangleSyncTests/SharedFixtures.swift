// The shared fixtures (Recorder, ManualPublisher, runConcurrently, withWatchdog, TestError, Counter) are visible in
// every file of this test target.
@_exported import UntangleTestSupport
