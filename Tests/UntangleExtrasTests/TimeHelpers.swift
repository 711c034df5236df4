import Dispatch
import Untangle

/// Seconds in a `DispatchQueue` (and `TestScheduler`) stride.
func opSeconds(_ stride: DispatchQueue.SchedulerTimeType.Stride) -> Double {
    Double(stride.magnitude) / 1_000_000_000
}
