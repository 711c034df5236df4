import Testing

extension ExitTest.Result {
    /// What the child process of an exit test wrote to its standard error, as text: a trap's message is there.
    ///
    /// ```swift
    /// let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) { trap() }
    /// #expect(result?.standardErrorText.contains("BufferStateMachine: nextStep") == true)
    /// ```
    package var standardErrorText: String { String(decoding: standardErrorContent, as: UTF8.self) }
}
