// The operator specializations Apple's Combine declares on `Just`.
//
// File layout: one file per publisher type for these specialization families (`Just`, `Optional.Publisher`,
// `Result.Publisher`, `Publishers.Sequence`), the agreed exception to "one operator per file".
//
// These methods shadow the generic `Publisher` operators for a `Just` receiver, exactly where Apple's do, so chains
// keep Apple's static types (`Just(1).map { $0 + 1 }` is a `Just<Int>`, not a `Publishers.Map<Just<Int>, Int>`) and
// cost nothing per stage. They are EAGER: each one computes its result from `output` when it is called, on the
// calling thread, and returns a publisher that already holds that result. A closure passed to one of them runs
// exactly once, synchronously, before the method returns (never at subscription, never again per subscriber); Apple's
// take non-escaping closures for this reason. A throwing closure's error becomes the `.failure` of the returned
// `Result.Publisher`. No lock is taken and nothing is subscribed.

extension Just where Output: Comparable {
    /// Publishes the only value, which is its own minimum.
    ///
    /// ```swift
    /// let smallest: Just<Int> = Just(3).min()   // Just(3)
    /// ```
    ///
    /// **Demand:** the result is computed when called; the returned `Just` delivers on the first request.
    /// **Thread safety:** pure; safe from any thread.
    public func min() -> Just<Output> {
        self
    }

    /// Publishes the only value, which is its own maximum.
    ///
    /// ```swift
    /// let largest: Just<Int> = Just(3).max()   // Just(3)
    /// ```
    ///
    /// **Demand:** the result is computed when called; the returned `Just` delivers on the first request.
    /// **Thread safety:** pure; safe from any thread.
    public func max() -> Just<Output> {
        self
    }
}

extension Just where Output: Equatable {
    /// Publishes whether the value equals `output`.
    ///
    /// ```swift
    /// let found: Just<Bool> = Just("a").contains("a")   // Just(true)
    /// ```
    ///
    /// **Demand:** the result is computed when called; the returned `Just` delivers on the first request.
    /// **Thread safety:** compares on the calling thread, before returning.
    public func contains(_ output: Output) -> Just<Bool> {
        Just<Bool>(self.output == output)
    }

    /// Publishes the value: a single value has no duplicates.
    ///
    /// ```swift
    /// let unique: Just<Int> = Just(1).removeDuplicates()   // Just(1)
    /// ```
    ///
    /// **Demand:** the result is computed when called; the returned `Just` delivers on the first request.
    /// **Thread safety:** pure; safe from any thread.
    public func removeDuplicates() -> Just<Output> {
        self
    }
}

extension Just {
    /// Publishes whether the value satisfies `predicate`, evaluated now.
    ///
    /// ```swift
    /// let allPositive: Just<Bool> = Just(4).allSatisfy { $0 > 0 }   // Just(true)
    /// ```
    ///
    /// **Demand:** the result is computed when called; the returned `Just` delivers on the first request.
    /// **Thread safety:** `predicate` runs once, on the calling thread, before this method returns.
    public func allSatisfy(_ predicate: (Output) -> Bool) -> Just<Bool> {
        Just<Bool>(predicate(output))
    }

    /// Publishes whether the value satisfies the throwing `predicate`, or fails with the error it throws.
    ///
    /// ```swift
    /// let checked: Result<Bool, Error>.Publisher = Just(4).tryAllSatisfy { try validate($0) }
    /// ```
    ///
    /// **Demand:** the result is computed when called; the returned publisher delivers on the first request.
    /// **Thread safety:** `predicate` runs once, on the calling thread, before this method returns.
    public func tryAllSatisfy(_ predicate: (Output) throws -> Bool) -> Result<Bool, Error>.Publisher {
        Result<Bool, Error>.Publisher(Result { try predicate(output) })
    }

    /// Publishes whether the value satisfies `predicate`, evaluated now.
    ///
    /// ```swift
    /// let hasEven: Just<Bool> = Just(3).contains { $0 % 2 == 0 }   // Just(false)
    /// ```
    ///
    /// **Demand:** the result is computed when called; the returned `Just` delivers on the first request.
    /// **Thread safety:** `predicate` runs once, on the calling thread, before this method returns.
    public func contains(where predicate: (Output) -> Bool) -> Just<Bool> {
        Just<Bool>(predicate(output))
    }

    /// Publishes whether the value satisfies the throwing `predicate`, or fails with the error it throws.
    ///
    /// ```swift
    /// let found: Result<Bool, Error>.Publisher = Just(3).tryContains { try isSpecial($0) }
    /// ```
    ///
    /// **Demand:** the result is computed when called; the returned publisher delivers on the first request.
    /// **Thread safety:** `predicate` runs once, on the calling thread, before this method returns.
    public func tryContains(where predicate: (Output) throws -> Bool) -> Result<Bool, Error>.Publisher {
        Result<Bool, Error>.Publisher(Result { try predicate(output) })
    }

    /// Publishes a one-element array holding the value.
    ///
    /// ```swift
    /// let all: Just<[Int]> = Just(5).collect()   // Just([5])
    /// ```
    ///
    /// **Demand:** the result is computed when called; the returned `Just` delivers on the first request.
    /// **Thread safety:** pure; safe from any thread.
    public func collect() -> Just<[Output]> {
        Just<[Output]>([output])
    }

    /// Publishes the value, the minimum of one element; `areInIncreasingOrder` is never called.
    ///
    /// ```swift
    /// let smallest: Just<String> = Just("b").min { $0 < $1 }   // Just("b")
    /// ```
    ///
    /// **Demand:** the result is computed when called; the returned `Just` delivers on the first request.
    /// **Thread safety:** pure; safe from any thread.
    public func min(by areInIncreasingOrder: (Output, Output) -> Bool) -> Just<Output> {
        self
    }

    /// Publishes the value, the maximum of one element; `areInIncreasingOrder` is never called.
    ///
    /// ```swift
    /// let largest: Just<String> = Just("b").max { $0 < $1 }   // Just("b")
    /// ```
    ///
    /// **Demand:** the result is computed when called; the returned `Just` delivers on the first request.
    /// **Thread safety:** pure; safe from any thread.
    public func max(by areInIncreasingOrder: (Output, Output) -> Bool) -> Just<Output> {
        self
    }

    /// Publishes `1`, the number of values a `Just` publishes.
    ///
    /// ```swift
    /// let count: Just<Int> = Just("x").count()   // Just(1)
    /// ```
    ///
    /// **Demand:** the result is computed when called; the returned `Just` delivers on the first request.
    /// **Thread safety:** pure; safe from any thread.
    public func count() -> Just<Int> {
        Just<Int>(1)
    }

    /// Publishes nothing if `count` is positive, the value if it is zero. A negative `count` stops the program.
    ///
    /// ```swift
    /// let rest: Optional<Int>.Publisher = Just(1).dropFirst()   // publishes nothing
    /// ```
    ///
    /// **Demand:** the result is computed when called; the returned publisher delivers on the first request.
    /// **Thread safety:** pure; safe from any thread.
    public func dropFirst(_ count: Int = 1) -> Optional<Output>.Publisher {
        precondition(count >= 0, "dropFirst(_:) needs a non-negative count, got \(count)")
        return Optional<Output>.Publisher(count == 0 ? output : nil)
    }

    /// Publishes the value unless `predicate` returns `true` for it.
    ///
    /// ```swift
    /// let kept: Optional<Int>.Publisher = Just(5).drop { $0 < 3 }   // publishes 5
    /// ```
    ///
    /// **Demand:** the result is computed when called; the returned publisher delivers on the first request.
    /// **Thread safety:** `predicate` runs once, on the calling thread, before this method returns.
    public func drop(while predicate: (Output) -> Bool) -> Optional<Output>.Publisher {
        Optional<Output>.Publisher(predicate(output) ? nil : output)
    }

    /// Publishes the value, which is the first.
    ///
    /// ```swift
    /// let first: Just<Int> = Just(8).first()   // Just(8)
    /// ```
    ///
    /// **Demand:** the result is computed when called; the returned `Just` delivers on the first request.
    /// **Thread safety:** pure; safe from any thread.
    public func first() -> Just<Output> {
        self
    }

    /// Publishes the value if it satisfies `predicate`, otherwise nothing.
    ///
    /// ```swift
    /// let match: Optional<Int>.Publisher = Just(8).first { $0 > 5 }   // publishes 8
    /// ```
    ///
    /// **Demand:** the result is computed when called; the returned publisher delivers on the first request.
    /// **Thread safety:** `predicate` runs once, on the calling thread, before this method returns.
    public func first(where predicate: (Output) -> Bool) -> Optional<Output>.Publisher {
        Optional<Output>.Publisher(predicate(output) ? output : nil)
    }

    /// Publishes the value, which is the last.
    ///
    /// ```swift
    /// let last: Just<Int> = Just(8).last()   // Just(8)
    /// ```
    ///
    /// **Demand:** the result is computed when called; the returned `Just` delivers on the first request.
    /// **Thread safety:** pure; safe from any thread.
    public func last() -> Just<Output> {
        self
    }

    /// Publishes the value if it satisfies `predicate`, otherwise nothing.
    ///
    /// ```swift
    /// let match: Optional<Int>.Publisher = Just(8).last { $0 > 10 }   // publishes nothing
    /// ```
    ///
    /// **Demand:** the result is computed when called; the returned publisher delivers on the first request.
    /// **Thread safety:** `predicate` runs once, on the calling thread, before this method returns.
    public func last(where predicate: (Output) -> Bool) -> Optional<Output>.Publisher {
        Optional<Output>.Publisher(predicate(output) ? output : nil)
    }

    /// Publishes the value if it satisfies `isIncluded`, otherwise nothing.
    ///
    /// ```swift
    /// let even: Optional<Int>.Publisher = Just(3).filter { $0 % 2 == 0 }   // publishes nothing
    /// ```
    ///
    /// **Demand:** the result is computed when called; the returned publisher delivers on the first request.
    /// **Thread safety:** `isIncluded` runs once, on the calling thread, before this method returns.
    public func filter(_ isIncluded: (Output) -> Bool) -> Optional<Output>.Publisher {
        Optional<Output>.Publisher(isIncluded(output) ? output : nil)
    }

    /// Publishes no value and finishes.
    ///
    /// ```swift
    /// let done: Empty<Int, Never> = Just(1).ignoreOutput()
    /// ```
    ///
    /// **Demand:** the returned `Empty` finishes at subscription.
    /// **Thread safety:** pure; safe from any thread.
    public func ignoreOutput() -> Empty<Output, Never> {
        Empty<Output, Never>()
    }

    /// Publishes `transform(output)`, computed now.
    ///
    /// ```swift
    /// let label: Just<String> = Just(7).map { "#\($0)" }   // Just("#7")
    /// ```
    ///
    /// **Demand:** the result is computed when called; the returned `Just` delivers on the first request.
    /// **Thread safety:** `transform` runs once, on the calling thread, before this method returns.
    public func map<T>(_ transform: (Output) -> T) -> Just<T> {
        Just<T>(transform(output))
    }

    /// Publishes `transform(output)`, computed now, or fails with the error it throws.
    ///
    /// ```swift
    /// let parsed: Result<Int, Error>.Publisher = Just("42").tryMap { try parse($0) }
    /// ```
    ///
    /// **Demand:** the result is computed when called; the returned publisher delivers on the first request.
    /// **Thread safety:** `transform` runs once, on the calling thread, before this method returns.
    public func tryMap<T>(_ transform: (Output) throws -> T) -> Result<T, Error>.Publisher {
        Result<T, Error>.Publisher(Result { try transform(output) })
    }

    /// Publishes the value if `transform` maps it to a non-nil result, otherwise nothing.
    ///
    /// ```swift
    /// let number: Optional<Int>.Publisher = Just("12").compactMap { Int($0) }   // publishes 12
    /// ```
    ///
    /// **Demand:** the result is computed when called; the returned publisher delivers on the first request.
    /// **Thread safety:** `transform` runs once, on the calling thread, before this method returns.
    public func compactMap<T>(_ transform: (Output) -> T?) -> Optional<T>.Publisher {
        Optional<T>.Publisher(transform(output))
    }

    /// Publishes the value if `index` is 0, otherwise nothing. A negative `index` stops the program.
    ///
    /// ```swift
    /// let element: Optional<Int>.Publisher = Just(9).output(at: 0)   // publishes 9
    /// ```
    ///
    /// **Demand:** the result is computed when called; the returned publisher delivers on the first request.
    /// **Thread safety:** pure; safe from any thread.
    public func output(at index: Int) -> Optional<Output>.Publisher {
        precondition(index >= 0, "output(at:) needs a non-negative index, got \(index)")
        return Optional<Output>.Publisher(index == 0 ? output : nil)
    }

    /// Publishes the value if `range` starts at index 0, otherwise nothing.
    ///
    /// As Combine's `Just.output(in:)`: only the lower bound counts, so an empty range starting at 0 (`0..<0`)
    /// publishes the value, and a range starting below 0 publishes nothing (it does not stop the program).
    ///
    /// ```swift
    /// let head: Optional<Int>.Publisher = Just(9).output(in: 0..<3)   // publishes 9
    /// ```
    ///
    /// **Demand:** the result is computed when called; the returned publisher delivers on the first request.
    /// **Thread safety:** pure; safe from any thread.
    public func output<R: RangeExpression>(in range: R) -> Optional<Output>.Publisher where R.Bound == Int {
        Optional<Output>.Publisher(range.relative(to: 0..<Int.max).lowerBound == 0 ? output : nil)
    }

    /// Publishes the value if `maxLength` is positive, otherwise nothing. A negative `maxLength` stops the program.
    ///
    /// ```swift
    /// let head: Optional<Int>.Publisher = Just(9).prefix(1)   // publishes 9
    /// ```
    ///
    /// **Demand:** the result is computed when called; the returned publisher delivers on the first request.
    /// **Thread safety:** pure; safe from any thread.
    public func prefix(_ maxLength: Int) -> Optional<Output>.Publisher {
        precondition(maxLength >= 0, "prefix(_:) needs a non-negative maxLength, got \(maxLength)")
        return Optional<Output>.Publisher(maxLength > 0 ? output : nil)
    }

    /// Publishes the value if it satisfies `predicate`, otherwise nothing.
    ///
    /// ```swift
    /// let head: Optional<Int>.Publisher = Just(9).prefix { $0 < 5 }   // publishes nothing
    /// ```
    ///
    /// **Demand:** the result is computed when called; the returned publisher delivers on the first request.
    /// **Thread safety:** `predicate` runs once, on the calling thread, before this method returns.
    public func prefix(while predicate: (Output) -> Bool) -> Optional<Output>.Publisher {
        Optional<Output>.Publisher(predicate(output) ? output : nil)
    }

    /// Publishes the value as a publisher whose failure type is `E` (it never fails).
    ///
    /// ```swift
    /// let typed: Result<Int, URLError>.Publisher = Just(1).setFailureType(to: URLError.self)
    /// ```
    ///
    /// **Demand:** the result is computed when called; the returned publisher delivers on the first request.
    /// **Thread safety:** pure; safe from any thread.
    public func setFailureType<E: Error>(to failureType: E.Type) -> Result<Output, E>.Publisher {
        Result<Output, E>.Publisher(.success(output))
    }

    /// Publishes the value as a publisher whose failure type is `E`; `transform` is never called (a `Just` never
    /// fails).
    ///
    /// ```swift
    /// let typed: Result<Int, AppError>.Publisher = Just(1).mapError { _ in AppError.unreachable }
    /// ```
    ///
    /// **Demand:** the result is computed when called; the returned publisher delivers on the first request.
    /// **Thread safety:** pure; safe from any thread.
    public func mapError<E: Error>(_ transform: (Just<Output>.Failure) -> E) -> Result<Output, E>.Publisher {
        Result<Output, E>.Publisher(.success(output))
    }

    /// Publishes the value: a single value has no duplicates, so `predicate` is never called.
    ///
    /// ```swift
    /// let unique: Just<Int> = Just(1).removeDuplicates { $0 == $1 }   // Just(1)
    /// ```
    ///
    /// **Demand:** the result is computed when called; the returned `Just` delivers on the first request.
    /// **Thread safety:** pure; safe from any thread.
    public func removeDuplicates(by predicate: (Output, Output) -> Bool) -> Just<Output> {
        self
    }

    /// Publishes the value as a publisher that may fail: `predicate` is called once, with the value as both
    /// arguments (as in Combine), and the publisher fails with the error it throws.
    ///
    /// ```swift
    /// let unique: Result<Int, Error>.Publisher = Just(1).tryRemoveDuplicates { try same($0, $1) }
    /// ```
    ///
    /// **Demand:** the result is computed when called; the returned publisher delivers on the first request.
    /// **Thread safety:** pure; safe from any thread.
    public func tryRemoveDuplicates(by predicate: (Output, Output) throws -> Bool) -> Result<Output, Error>.Publisher {
        Result<Output, Error>.Publisher(
            Result { () throws -> Output in
                _ = try predicate(output, output)
                return output
            })
    }

    /// Publishes the value: a `Just` never fails, so `output` is never used.
    ///
    /// ```swift
    /// let safe: Just<Int> = Just(1).replaceError(with: 0)   // Just(1)
    /// ```
    ///
    /// **Demand:** the result is computed when called; the returned `Just` delivers on the first request.
    /// **Thread safety:** pure; safe from any thread.
    public func replaceError(with output: Output) -> Just<Output> {
        self
    }

    /// Publishes the value: a `Just` is never empty, so `output` is never used.
    ///
    /// ```swift
    /// let filled: Just<Int> = Just(1).replaceEmpty(with: 0)   // Just(1)
    /// ```
    ///
    /// **Demand:** the result is computed when called; the returned `Just` delivers on the first request.
    /// **Thread safety:** pure; safe from any thread.
    public func replaceEmpty(with output: Output) -> Just<Output> {
        self
    }

    /// Publishes the value: a `Just` never fails, so there is nothing to retry.
    ///
    /// ```swift
    /// let same: Just<Int> = Just(1).retry(3)   // Just(1)
    /// ```
    ///
    /// **Demand:** the result is computed when called; the returned `Just` delivers on the first request.
    /// **Thread safety:** pure; safe from any thread.
    public func retry(_ times: Int) -> Just<Output> {
        self
    }

    /// Publishes `nextPartialResult(initialResult, output)`, computed now.
    ///
    /// ```swift
    /// let total: Result<Int, Never>.Publisher = Just(4).reduce(10, +)   // publishes 14
    /// ```
    ///
    /// **Demand:** the result is computed when called; the returned publisher delivers on the first request.
    /// **Thread safety:** `nextPartialResult` runs once, on the calling thread, before this method returns.
    public func reduce<T>(_ initialResult: T, _ nextPartialResult: (T, Output) -> T)
        -> Result<T, Just<Output>.Failure>.Publisher
    {
        Result<T, Never>.Publisher(.success(nextPartialResult(initialResult, output)))
    }

    /// Publishes `nextPartialResult(initialResult, output)`, computed now, or fails with the error it throws.
    ///
    /// ```swift
    /// let total: Result<Int, Error>.Publisher = Just(4).tryReduce(10) { try checkedAdd($0, $1) }
    /// ```
    ///
    /// **Demand:** the result is computed when called; the returned publisher delivers on the first request.
    /// **Thread safety:** `nextPartialResult` runs once, on the calling thread, before this method returns.
    public func tryReduce<T>(_ initialResult: T, _ nextPartialResult: (T, Output) throws -> T)
        -> Result<T, Error>.Publisher
    {
        Result<T, Error>.Publisher(Result { try nextPartialResult(initialResult, output) })
    }

    /// Publishes `nextPartialResult(initialResult, output)`, the only partial result, computed now.
    ///
    /// ```swift
    /// let running: Result<Int, Never>.Publisher = Just(4).scan(10, +)   // publishes 14
    /// ```
    ///
    /// **Demand:** the result is computed when called; the returned publisher delivers on the first request.
    /// **Thread safety:** `nextPartialResult` runs once, on the calling thread, before this method returns.
    public func scan<T>(_ initialResult: T, _ nextPartialResult: (T, Output) -> T)
        -> Result<T, Just<Output>.Failure>.Publisher
    {
        Result<T, Never>.Publisher(.success(nextPartialResult(initialResult, output)))
    }

    /// Publishes `nextPartialResult(initialResult, output)`, computed now, or fails with the error it throws.
    ///
    /// ```swift
    /// let running: Result<Int, Error>.Publisher = Just(4).tryScan(10) { try checkedAdd($0, $1) }
    /// ```
    ///
    /// **Demand:** the result is computed when called; the returned publisher delivers on the first request.
    /// **Thread safety:** `nextPartialResult` runs once, on the calling thread, before this method returns.
    public func tryScan<T>(_ initialResult: T, _ nextPartialResult: (T, Output) throws -> T)
        -> Result<T, Error>.Publisher
    {
        Result<T, Error>.Publisher(Result { try nextPartialResult(initialResult, output) })
    }

    /// Publishes `elements`, then the value.
    ///
    /// ```swift
    /// let all: Publishers.Sequence<[Int], Never> = Just(3).prepend(1, 2)   // 1, 2, 3
    /// ```
    ///
    /// **Demand:** the result is computed when called; the returned sequence publisher delivers one element per
    /// unit of demand.
    /// **Thread safety:** pure; safe from any thread.
    public func prepend(_ elements: Output...) -> Publishers.Sequence<[Output], Just<Output>.Failure> {
        prepend(elements)
    }

    /// Publishes the elements of `elements` (iterated now), then the value.
    ///
    /// ```swift
    /// let all: Publishers.Sequence<[Int], Never> = Just(3).prepend([1, 2])   // 1, 2, 3
    /// ```
    ///
    /// **Demand:** the result is computed when called; the returned sequence publisher delivers one element per
    /// unit of demand.
    /// **Thread safety:** `elements` is iterated once, on the calling thread, before this method returns.
    public func prepend<S: Sequence>(_ elements: S) -> Publishers.Sequence<[Output], Just<Output>.Failure>
    where Output == S.Element {
        Publishers.Sequence(sequence: elements + [output])
    }

    /// Publishes the value, then `elements`.
    ///
    /// ```swift
    /// let all: Publishers.Sequence<[Int], Never> = Just(1).append(2, 3)   // 1, 2, 3
    /// ```
    ///
    /// **Demand:** the result is computed when called; the returned sequence publisher delivers one element per
    /// unit of demand.
    /// **Thread safety:** pure; safe from any thread.
    public func append(_ elements: Output...) -> Publishers.Sequence<[Output], Just<Output>.Failure> {
        append(elements)
    }

    /// Publishes the value, then the elements of `elements` (iterated now).
    ///
    /// ```swift
    /// let all: Publishers.Sequence<[Int], Never> = Just(1).append([2, 3])   // 1, 2, 3
    /// ```
    ///
    /// **Demand:** the result is computed when called; the returned sequence publisher delivers one element per
    /// unit of demand.
    /// **Thread safety:** `elements` is iterated once, on the calling thread, before this method returns.
    public func append<S: Sequence>(_ elements: S) -> Publishers.Sequence<[Output], Just<Output>.Failure>
    where Output == S.Element {
        Publishers.Sequence(sequence: [output] + elements)
    }
}
