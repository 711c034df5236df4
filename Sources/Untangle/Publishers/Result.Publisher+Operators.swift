// The operator specializations Apple's Combine declares on `Result.Publisher`.
//
// File layout: one file per publisher type for these specialization families (`Just`, `Optional.Publisher`,
// `Result.Publisher`, `Publishers.Sequence`), the agreed exception to "one operator per file".
//
// These methods shadow the generic `Publisher` operators for a `Result.Publisher` receiver, exactly where Apple's do,
// so chains keep Apple's static types (`Result<Int, E>.Publisher(1).map { $0 + 1 }` is a `Result<Int, E>.Publisher`)
// and cost nothing per stage. They are EAGER: each one computes its result from `result` when it is called, on the
// calling thread, and returns a publisher that already holds that result. A closure passed to one of them runs at most
// once, synchronously, before the method returns (never for a failure, never at subscription). A throwing closure's
// error becomes the `.failure` of the returned publisher.
//
// Semantics, as Apple's: each operator applies to the success value; a failure passes through unchanged (converted
// to `any Error` by the `try` variants), except where the operator consumes errors (`replaceError(with:)`) or cannot
// express one (`ignoreOutput()` returns an `Empty`, which finishes: the failure is dropped). Comparators and
// duplicate predicates (`min(by:)`, `tryMax(by:)`, `removeDuplicates(by:)`...) are never called: one value has
// nothing to be compared with. No lock is taken and nothing is subscribed.

extension Result.Publisher where Output: Equatable {
    /// Publishes whether the success value equals `output`, or the failure.
    ///
    /// ```swift
    /// let found: Result<Bool, AppError>.Publisher = Result<Int, AppError>.Publisher(3).contains(3)   // true
    /// ```
    ///
    /// **Demand:** the result is computed when called; the returned publisher delivers on the first request.
    /// **Thread safety:** compares on the calling thread, before returning.
    public func contains(_ output: Output) -> Result<Bool, Failure>.Publisher {
        Result<Bool, Failure>.Publisher(result.map { $0 == output })
    }

    /// Publishes the same result: a single value has no duplicates.
    ///
    /// ```swift
    /// let unique: Result<Int, AppError>.Publisher = Result<Int, AppError>.Publisher(3).removeDuplicates()
    /// ```
    ///
    /// **Demand:** the result is computed when called; the returned publisher delivers on the first request.
    /// **Thread safety:** pure; safe from any thread.
    public func removeDuplicates() -> Result<Output, Failure>.Publisher {
        self
    }
}

extension Result.Publisher where Output: Comparable {
    /// Publishes the same result: a single value is its own minimum.
    ///
    /// ```swift
    /// let smallest: Result<Int, AppError>.Publisher = Result<Int, AppError>.Publisher(3).min()
    /// ```
    ///
    /// **Demand:** the result is computed when called; the returned publisher delivers on the first request.
    /// **Thread safety:** pure; safe from any thread.
    public func min() -> Result<Output, Failure>.Publisher {
        self
    }

    /// Publishes the same result: a single value is its own maximum.
    ///
    /// ```swift
    /// let largest: Result<Int, AppError>.Publisher = Result<Int, AppError>.Publisher(3).max()
    /// ```
    ///
    /// **Demand:** the result is computed when called; the returned publisher delivers on the first request.
    /// **Thread safety:** pure; safe from any thread.
    public func max() -> Result<Output, Failure>.Publisher {
        self
    }
}

extension Result.Publisher {
    /// Publishes whether the success value satisfies `predicate`, or the failure.
    ///
    /// ```swift
    /// let positive: Result<Bool, AppError>.Publisher = Result<Int, AppError>.Publisher(4).allSatisfy { $0 > 0 }
    /// ```
    ///
    /// **Demand:** the result is computed when called; the returned publisher delivers on the first request.
    /// **Thread safety:** `predicate` runs at most once, on the calling thread, before this method returns.
    public func allSatisfy(_ predicate: (Output) -> Bool) -> Result<Bool, Failure>.Publisher {
        Result<Bool, Failure>.Publisher(result.map(predicate))
    }

    /// Publishes whether the success value satisfies the throwing `predicate`; fails with the error it throws or
    /// with the original failure.
    ///
    /// ```swift
    /// let valid: Result<Bool, Error>.Publisher = Result<Int, AppError>.Publisher(4).tryAllSatisfy { try check($0) }
    /// ```
    ///
    /// **Demand:** the result is computed when called; the returned publisher delivers on the first request.
    /// **Thread safety:** `predicate` runs at most once, on the calling thread, before this method returns.
    public func tryAllSatisfy(_ predicate: (Output) throws -> Bool) -> Result<Bool, Error>.Publisher {
        Result<Bool, Error>.Publisher(tryTransform(predicate))
    }

    /// Publishes whether the success value satisfies `predicate`, or the failure.
    ///
    /// ```swift
    /// let even: Result<Bool, AppError>.Publisher = Result<Int, AppError>.Publisher(3).contains { $0 % 2 == 0 }
    /// ```
    ///
    /// **Demand:** the result is computed when called; the returned publisher delivers on the first request.
    /// **Thread safety:** `predicate` runs at most once, on the calling thread, before this method returns.
    public func contains(where predicate: (Output) -> Bool) -> Result<Bool, Failure>.Publisher {
        Result<Bool, Failure>.Publisher(result.map(predicate))
    }

    /// Publishes whether the success value satisfies the throwing `predicate`; fails with the error it throws or
    /// with the original failure.
    ///
    /// ```swift
    /// let found: Result<Bool, Error>.Publisher = Result<Int, AppError>.Publisher(3).tryContains { try special($0) }
    /// ```
    ///
    /// **Demand:** the result is computed when called; the returned publisher delivers on the first request.
    /// **Thread safety:** `predicate` runs at most once, on the calling thread, before this method returns.
    public func tryContains(where predicate: (Output) throws -> Bool) -> Result<Bool, Error>.Publisher {
        Result<Bool, Error>.Publisher(tryTransform(predicate))
    }

    /// Publishes a one-element array holding the success value, or the failure.
    ///
    /// ```swift
    /// let all: Result<[Int], AppError>.Publisher = Result<Int, AppError>.Publisher(5).collect()   // [5]
    /// ```
    ///
    /// **Demand:** the result is computed when called; the returned publisher delivers on the first request.
    /// **Thread safety:** pure; safe from any thread.
    public func collect() -> Result<[Output], Failure>.Publisher {
        Result<[Output], Failure>.Publisher(result.map { [$0] })
    }

    /// Publishes the same result; `areInIncreasingOrder` is never called.
    ///
    /// ```swift
    /// let smallest: Result<Int, AppError>.Publisher = Result<Int, AppError>.Publisher(3).min { $0 < $1 }
    /// ```
    ///
    /// **Demand:** the result is computed when called; the returned publisher delivers on the first request.
    /// **Thread safety:** pure; safe from any thread.
    public func min(by areInIncreasingOrder: (Output, Output) -> Bool) -> Result<Output, Failure>.Publisher {
        self
    }

    /// Publishes the same result with its failure seen as `any Error`. For a success, `areInIncreasingOrder` is called
    /// once with the value as both arguments (as in Combine), and an error it throws becomes the failure.
    ///
    /// ```swift
    /// let smallest: Result<Int, Error>.Publisher = Result<Int, AppError>.Publisher(3).tryMin { try less($0, $1) }
    /// ```
    ///
    /// **Demand:** the result is computed when called; the returned publisher delivers on the first request.
    /// **Thread safety:** pure; safe from any thread.
    public func tryMin(by areInIncreasingOrder: (Output, Output) throws -> Bool) -> Result<Output, Error>.Publisher {
        Result<Output, Error>.Publisher(
            Swift.Result<Output, Error> { () throws -> Output in
                let value = try result.get()
                _ = try areInIncreasingOrder(value, value)
                return value
            })
    }

    /// Publishes the same result; `areInIncreasingOrder` is never called.
    ///
    /// ```swift
    /// let largest: Result<Int, AppError>.Publisher = Result<Int, AppError>.Publisher(3).max { $0 < $1 }
    /// ```
    ///
    /// **Demand:** the result is computed when called; the returned publisher delivers on the first request.
    /// **Thread safety:** pure; safe from any thread.
    public func max(by areInIncreasingOrder: (Output, Output) -> Bool) -> Result<Output, Failure>.Publisher {
        self
    }

    /// Publishes the same result with its failure seen as `any Error`. For a success, `areInIncreasingOrder` is called
    /// once with the value as both arguments (as in Combine), and an error it throws becomes the failure.
    ///
    /// ```swift
    /// let largest: Result<Int, Error>.Publisher = Result<Int, AppError>.Publisher(3).tryMax { try less($0, $1) }
    /// ```
    ///
    /// **Demand:** the result is computed when called; the returned publisher delivers on the first request.
    /// **Thread safety:** pure; safe from any thread.
    public func tryMax(by areInIncreasingOrder: (Output, Output) throws -> Bool) -> Result<Output, Error>.Publisher {
        Result<Output, Error>.Publisher(
            Swift.Result<Output, Error> { () throws -> Output in
                let value = try result.get()
                _ = try areInIncreasingOrder(value, value)
                return value
            })
    }

    /// Publishes `1` for a success, or the failure.
    ///
    /// ```swift
    /// let count: Result<Int, AppError>.Publisher = Result<String, AppError>.Publisher("x").count()   // 1
    /// ```
    ///
    /// **Demand:** the result is computed when called; the returned publisher delivers on the first request.
    /// **Thread safety:** pure; safe from any thread.
    public func count() -> Result<Int, Failure>.Publisher {
        Result<Int, Failure>.Publisher(result.map { _ in 1 })
    }

    /// Publishes the same result: a single value is the first.
    ///
    /// ```swift
    /// let first: Result<Int, AppError>.Publisher = Result<Int, AppError>.Publisher(8).first()
    /// ```
    ///
    /// **Demand:** the result is computed when called; the returned publisher delivers on the first request.
    /// **Thread safety:** pure; safe from any thread.
    public func first() -> Result<Output, Failure>.Publisher {
        self
    }

    /// Publishes the same result: a single value is the last.
    ///
    /// ```swift
    /// let last: Result<Int, AppError>.Publisher = Result<Int, AppError>.Publisher(8).last()
    /// ```
    ///
    /// **Demand:** the result is computed when called; the returned publisher delivers on the first request.
    /// **Thread safety:** pure; safe from any thread.
    public func last() -> Result<Output, Failure>.Publisher {
        self
    }

    /// Publishes no value and finishes, even for a failure (an `Empty` cannot fail; as Apple's).
    ///
    /// ```swift
    /// let done: Empty<Int, AppError> = Result<Int, AppError>.Publisher(1).ignoreOutput()
    /// ```
    ///
    /// **Demand:** the returned `Empty` finishes at subscription.
    /// **Thread safety:** pure; safe from any thread.
    public func ignoreOutput() -> Empty<Output, Failure> {
        Empty<Output, Failure>()
    }

    /// Publishes `transform(value)` for a success, computed now, or the failure.
    ///
    /// ```swift
    /// let label: Result<String, AppError>.Publisher = Result<Int, AppError>.Publisher(7).map { "#\($0)" }
    /// ```
    ///
    /// **Demand:** the result is computed when called; the returned publisher delivers on the first request.
    /// **Thread safety:** `transform` runs at most once, on the calling thread, before this method returns.
    public func map<T>(_ transform: (Output) -> T) -> Result<T, Failure>.Publisher {
        Result<T, Failure>.Publisher(result.map(transform))
    }

    /// Publishes `transform(value)` for a success, computed now; fails with the error it throws or with the
    /// original failure.
    ///
    /// ```swift
    /// let parsed: Result<Int, Error>.Publisher = Result<String, AppError>.Publisher("42").tryMap { try parse($0) }
    /// ```
    ///
    /// **Demand:** the result is computed when called; the returned publisher delivers on the first request.
    /// **Thread safety:** `transform` runs at most once, on the calling thread, before this method returns.
    public func tryMap<T>(_ transform: (Output) throws -> T) -> Result<T, Error>.Publisher {
        Result<T, Error>.Publisher(tryTransform(transform))
    }

    /// Publishes the success value, or `transform(error)` for a failure, computed now.
    ///
    /// ```swift
    /// let wrapped: Result<Int, UIError>.Publisher = Result<Int, AppError>.Publisher(.offline).mapError(UIError.init)
    /// ```
    ///
    /// **Demand:** the result is computed when called; the returned publisher delivers on the first request.
    /// **Thread safety:** `transform` runs at most once, on the calling thread, before this method returns.
    public func mapError<E: Error>(_ transform: (Failure) -> E) -> Result<Output, E>.Publisher {
        Result<Output, E>.Publisher(result.mapError(transform))
    }

    /// Publishes the same result: a single value has no duplicates, so `predicate` is never called.
    ///
    /// ```swift
    /// let unique: Result<Int, AppError>.Publisher = Result<Int, AppError>.Publisher(1).removeDuplicates { $0 == $1 }
    /// ```
    ///
    /// **Demand:** the result is computed when called; the returned publisher delivers on the first request.
    /// **Thread safety:** pure; safe from any thread.
    public func removeDuplicates(by predicate: (Output, Output) -> Bool) -> Result<Output, Failure>.Publisher {
        self
    }

    /// Publishes the same result with its failure seen as `any Error`. For a success, `predicate` is called once with
    /// the value as both arguments (as in Combine), and an error it throws becomes the failure.
    ///
    /// ```swift
    /// let unique: Result<Int, Error>.Publisher = Result<Int, AppError>.Publisher(1).tryRemoveDuplicates(by: same)
    /// ```
    ///
    /// **Demand:** the result is computed when called; the returned publisher delivers on the first request.
    /// **Thread safety:** pure; safe from any thread.
    public func tryRemoveDuplicates(by predicate: (Output, Output) throws -> Bool) -> Result<Output, Error>.Publisher {
        Result<Output, Error>.Publisher(
            Swift.Result<Output, Error> { () throws -> Output in
                let value = try result.get()
                _ = try predicate(value, value)
                return value
            })
    }

    /// Publishes the success value, or `output` in place of a failure; never fails.
    ///
    /// ```swift
    /// let safe: Result<Int, Never>.Publisher = Result<Int, AppError>.Publisher(.offline).replaceError(with: 0)
    /// ```
    ///
    /// **Demand:** the result is computed when called; the returned publisher delivers on the first request.
    /// **Thread safety:** pure; safe from any thread.
    public func replaceError(with output: Output) -> Result<Output, Never>.Publisher {
        switch result {
        case .success(let value): return Result<Output, Never>.Publisher(.success(value))
        case .failure: return Result<Output, Never>.Publisher(.success(output))
        }
    }

    /// Publishes the same result: a success is never empty, and a failure is not replaced.
    ///
    /// ```swift
    /// let filled: Result<Int, AppError>.Publisher = Result<Int, AppError>.Publisher(1).replaceEmpty(with: 0)
    /// ```
    ///
    /// **Demand:** the result is computed when called; the returned publisher delivers on the first request.
    /// **Thread safety:** pure; safe from any thread.
    public func replaceEmpty(with output: Output) -> Result<Output, Failure>.Publisher {
        self
    }

    /// Publishes the same result: resubscribing would deliver the same failure again.
    ///
    /// ```swift
    /// let same: Result<Int, AppError>.Publisher = Result<Int, AppError>.Publisher(.offline).retry(3)
    /// ```
    ///
    /// **Demand:** the result is computed when called; the returned publisher delivers on the first request.
    /// **Thread safety:** pure; safe from any thread.
    public func retry(_ times: Int) -> Result<Output, Failure>.Publisher {
        self
    }

    /// Publishes `nextPartialResult(initialResult, value)` for a success, computed now, or the failure.
    ///
    /// ```swift
    /// let total: Result<Int, AppError>.Publisher = Result<Int, AppError>.Publisher(4).reduce(10, +)   // 14
    /// ```
    ///
    /// **Demand:** the result is computed when called; the returned publisher delivers on the first request.
    /// **Thread safety:** `nextPartialResult` runs at most once, on the calling thread, before this method returns.
    public func reduce<T>(_ initialResult: T, _ nextPartialResult: (T, Output) -> T) -> Result<T, Failure>.Publisher {
        Result<T, Failure>.Publisher(result.map { nextPartialResult(initialResult, $0) })
    }

    /// Publishes `nextPartialResult(initialResult, value)` for a success, computed now; fails with the error it
    /// throws or with the original failure.
    ///
    /// ```swift
    /// let total: Result<Int, Error>.Publisher = Result<Int, AppError>.Publisher(4).tryReduce(10) { try add($0, $1) }
    /// ```
    ///
    /// **Demand:** the result is computed when called; the returned publisher delivers on the first request.
    /// **Thread safety:** `nextPartialResult` runs at most once, on the calling thread, before this method returns.
    public func tryReduce<T>(_ initialResult: T, _ nextPartialResult: (T, Output) throws -> T)
        -> Result<T, Error>.Publisher
    {
        Result<T, Error>.Publisher(tryTransform { try nextPartialResult(initialResult, $0) })
    }

    /// Publishes `nextPartialResult(initialResult, value)`, the only partial result, for a success, or the failure.
    ///
    /// ```swift
    /// let running: Result<Int, AppError>.Publisher = Result<Int, AppError>.Publisher(4).scan(10, +)   // 14
    /// ```
    ///
    /// **Demand:** the result is computed when called; the returned publisher delivers on the first request.
    /// **Thread safety:** `nextPartialResult` runs at most once, on the calling thread, before this method returns.
    public func scan<T>(_ initialResult: T, _ nextPartialResult: (T, Output) -> T) -> Result<T, Failure>.Publisher {
        Result<T, Failure>.Publisher(result.map { nextPartialResult(initialResult, $0) })
    }

    /// Publishes `nextPartialResult(initialResult, value)` for a success, computed now; fails with the error it
    /// throws or with the original failure.
    ///
    /// ```swift
    /// let running: Result<Int, Error>.Publisher = Result<Int, AppError>.Publisher(4).tryScan(10) { try add($0, $1) }
    /// ```
    ///
    /// **Demand:** the result is computed when called; the returned publisher delivers on the first request.
    /// **Thread safety:** `nextPartialResult` runs at most once, on the calling thread, before this method returns.
    public func tryScan<T>(_ initialResult: T, _ nextPartialResult: (T, Output) throws -> T)
        -> Result<T, Error>.Publisher
    {
        Result<T, Error>.Publisher(tryTransform { try nextPartialResult(initialResult, $0) })
    }

    // The success value through a throwing transform; a failure passes through as `any Error`.
    private func tryTransform<T>(_ transform: (Output) throws -> T) -> Result<T, Error> {
        switch result {
        case .success(let value): return Result<T, Error> { try transform(value) }
        case .failure(let error): return .failure(error)
        }
    }
}

extension Result.Publisher where Failure == Never {
    /// Publishes the success value as a publisher whose failure type is `E` (it never fails).
    ///
    /// ```swift
    /// let typed: Result<Int, AppError>.Publisher = Result<Int, Never>.Publisher(1).setFailureType(to: AppError.self)
    /// ```
    ///
    /// **Demand:** the result is computed when called; the returned publisher delivers on the first request.
    /// **Thread safety:** pure; safe from any thread.
    public func setFailureType<E: Error>(to failureType: E.Type) -> Result<Output, E>.Publisher {
        Result<Output, E>.Publisher(.success(result.get()))
    }
}
