/// What a per-value operator decides for one upstream value (see ``StepSubscription``).
///
/// **Demand:** `.skip` asks upstream for one more value in place of the skipped one; the others pass the
/// downstream's returned demand through.
/// **Thread safety:** a value.
@usableFromInline
package enum OperatorStep<Output, Failure: Error> {
    /// Deliver this value downstream.
    case emit(Output)
    /// Deliver nothing for this upstream value (and request one more upstream).
    case skip
    /// Deliver this value, then finish (cancelling upstream).
    case emitThenFinish(Output)
    /// Finish now (cancelling upstream).
    case finish
    /// Fail now (cancelling upstream).
    case fail(Failure)
}
