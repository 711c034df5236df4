// The operator specializations Apple's Combine declares on `Optional.Publisher`.
//
// File layout: one file per publisher type for these specialization families (`Just`, `Optional.Publisher`,
// `Result.Publisher`, `Publishers.Sequence`), the agreed exception to "one operator per file".
//
// These methods shadow the generic `Publisher` operators for an `Optional.Publisher` receiver, exactly where Apple's
// do, so chains keep Apple's static types (`Optional(1).publisher.map { $0 + 1 }` is an `Optional<Int>.Publisher`)
// and cost nothing per stage. They are EAGER: each one computes its result from `output` when it is called, on the
// calling thread, and returns a publisher that already holds that result. A closure passed to one of them runs at most
// once, synchronously, before the method returns (never when `output` is nil, never at subscription).
//
// Semantics, as Apple's: each operator applies to the wrapped value if there is one, and a nil `output` stays nil
// (publishes nothing) — including `count()`, `reduce`, `allSatisfy`, `contains`, which for an empty generic publisher
// would publish 0, the initial result, `true`, `false`. The one exception is `collect()`, which publishes `[]` for
// nil. No lock is taken and nothing is subscribed.

extension Optional.Publisher where Wrapped: Equatable {
    /// Publishes whether the value equals `output`; nothing if there is no value.
    ///
    /// ```swift
    /// let found: Optional<Bool>.Publisher = Optional("a").publisher.contains("a")   // publishes true
    /// ```
    ///
    /// **Demand:** the result is computed when called; the returned publisher delivers on the first request.
    /// **Thread safety:** compares on the calling thread, before returning.
    public func contains(_ output: Output) -> Optional<Bool>.Publisher {
        Optional<Bool>.Publisher(self.output.map { $0 == output })
    }

    /// Publishes the value, if any: a single value has no duplicates.
    ///
    /// ```swift
    /// let unique: Optional<Int>.Publisher = Optional(1).publisher.removeDuplicates()
    /// ```
    ///
    /// **Demand:** the result is computed when called; the returned publisher delivers on the first request.
    /// **Thread safety:** pure; safe from any thread.
    public func removeDuplicates() -> Optional<Wrapped>.Publisher {
        self
    }
}

extension Optional.Publisher where Wrapped: Comparable {
    /// Publishes the value, if any, which is its own minimum.
    ///
    /// ```swift
    /// let smallest: Optional<Int>.Publisher = Optional(3).publisher.min()   // publishes 3
    /// ```
    ///
    /// **Demand:** the result is computed when called; the returned publisher delivers on the first request.
    /// **Thread safety:** pure; safe from any thread.
    public func min() -> Optional<Wrapped>.Publisher {
        self
    }

    /// Publishes the value, if any, which is its own maximum.
    ///
    /// ```swift
    /// let largest: Optional<Int>.Publisher = Optional(3).publisher.max()   // publishes 3
    /// ```
    ///
    /// **Demand:** the result is computed when called; the returned publisher delivers on the first request.
    /// **Thread safety:** pure; safe from any thread.
    public func max() -> Optional<Wrapped>.Publisher {
        self
    }
}

extension Optional.Publisher {
    /// Publishes whether the value satisfies `predicate`; nothing if there is no value.
    ///
    /// ```swift
    /// let positive: Optional<Bool>.Publisher = Optional(4).publisher.allSatisfy { $0 > 0 }   // publishes true
    /// ```
    ///
    /// **Demand:** the result is computed when called; the returned publisher delivers on the first request.
    /// **Thread safety:** `predicate` runs at most once, on the calling thread, before this method returns.
    public func allSatisfy(_ predicate: (Output) -> Bool) -> Optional<Bool>.Publisher {
        Optional<Bool>.Publisher(output.map(predicate))
    }

    /// Publishes a one-element array holding the value, or an empty array if there is none.
    ///
    /// ```swift
    /// let all: Optional<[Int]>.Publisher = Optional<Int>.none.publisher.collect()   // publishes []
    /// ```
    ///
    /// **Demand:** the result is computed when called; the returned publisher delivers on the first request.
    /// **Thread safety:** pure; safe from any thread.
    public func collect() -> Optional<[Output]>.Publisher {
        Optional<[Output]>.Publisher(output.map { [$0] } ?? [])
    }

    /// Publishes `transform(value)` if it is non-nil; nothing otherwise.
    ///
    /// ```swift
    /// let number: Optional<Int>.Publisher = Optional("12").publisher.compactMap { Int($0) }   // publishes 12
    /// ```
    ///
    /// **Demand:** the result is computed when called; the returned publisher delivers on the first request.
    /// **Thread safety:** `transform` runs at most once, on the calling thread, before this method returns.
    public func compactMap<T>(_ transform: (Output) -> T?) -> Optional<T>.Publisher {
        Optional<T>.Publisher(output.flatMap(transform))
    }

    /// Publishes the value, if any; `areInIncreasingOrder` is never called.
    ///
    /// ```swift
    /// let smallest: Optional<Int>.Publisher = Optional(3).publisher.min { $0 < $1 }   // publishes 3
    /// ```
    ///
    /// **Demand:** the result is computed when called; the returned publisher delivers on the first request.
    /// **Thread safety:** pure; safe from any thread.
    public func min(by areInIncreasingOrder: (Output, Output) -> Bool) -> Optional<Output>.Publisher {
        self
    }

    /// Publishes the value, if any; `areInIncreasingOrder` is never called.
    ///
    /// ```swift
    /// let largest: Optional<Int>.Publisher = Optional(3).publisher.max { $0 < $1 }   // publishes 3
    /// ```
    ///
    /// **Demand:** the result is computed when called; the returned publisher delivers on the first request.
    /// **Thread safety:** pure; safe from any thread.
    public func max(by areInIncreasingOrder: (Output, Output) -> Bool) -> Optional<Output>.Publisher {
        self
    }

    /// Publishes whether the value satisfies `predicate`; nothing if there is no value.
    ///
    /// ```swift
    /// let even: Optional<Bool>.Publisher = Optional(3).publisher.contains { $0 % 2 == 0 }   // publishes false
    /// ```
    ///
    /// **Demand:** the result is computed when called; the returned publisher delivers on the first request.
    /// **Thread safety:** `predicate` runs at most once, on the calling thread, before this method returns.
    public func contains(where predicate: (Output) -> Bool) -> Optional<Bool>.Publisher {
        Optional<Bool>.Publisher(output.map(predicate))
    }

    /// Publishes `1` if there is a value; nothing (not `0`) if there is none, as Apple's.
    ///
    /// ```swift
    /// let count: Optional<Int>.Publisher = Optional("x").publisher.count()   // publishes 1
    /// ```
    ///
    /// **Demand:** the result is computed when called; the returned publisher delivers on the first request.
    /// **Thread safety:** pure; safe from any thread.
    public func count() -> Optional<Int>.Publisher {
        Optional<Int>.Publisher(output.map { _ in 1 })
    }

    /// Publishes the value only if `count` is zero. A negative `count` stops the program.
    ///
    /// ```swift
    /// let rest: Optional<Int>.Publisher = Optional(1).publisher.dropFirst()   // publishes nothing
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
    /// let kept: Optional<Int>.Publisher = Optional(5).publisher.drop { $0 < 3 }   // publishes 5
    /// ```
    ///
    /// **Demand:** the result is computed when called; the returned publisher delivers on the first request.
    /// **Thread safety:** `predicate` runs at most once, on the calling thread, before this method returns.
    public func drop(while predicate: (Output) -> Bool) -> Optional<Output>.Publisher {
        Optional<Output>.Publisher(output.flatMap { predicate($0) ? nil : $0 })
    }

    /// Publishes the value, if any, which is the first.
    ///
    /// ```swift
    /// let first: Optional<Int>.Publisher = Optional(8).publisher.first()   // publishes 8
    /// ```
    ///
    /// **Demand:** the result is computed when called; the returned publisher delivers on the first request.
    /// **Thread safety:** pure; safe from any thread.
    public func first() -> Optional<Output>.Publisher {
        self
    }

    /// Publishes the value if it satisfies `predicate`; nothing otherwise.
    ///
    /// ```swift
    /// let match: Optional<Int>.Publisher = Optional(8).publisher.first { $0 > 5 }   // publishes 8
    /// ```
    ///
    /// **Demand:** the result is computed when called; the returned publisher delivers on the first request.
    /// **Thread safety:** `predicate` runs at most once, on the calling thread, before this method returns.
    public func first(where predicate: (Output) -> Bool) -> Optional<Output>.Publisher {
        Optional<Output>.Publisher(output.flatMap { predicate($0) ? $0 : nil })
    }

    /// Publishes the value, if any, which is the last.
    ///
    /// ```swift
    /// let last: Optional<Int>.Publisher = Optional(8).publisher.last()   // publishes 8
    /// ```
    ///
    /// **Demand:** the result is computed when called; the returned publisher delivers on the first request.
    /// **Thread safety:** pure; safe from any thread.
    public func last() -> Optional<Output>.Publisher {
        self
    }

    /// Publishes the value if it satisfies `predicate`; nothing otherwise.
    ///
    /// ```swift
    /// let match: Optional<Int>.Publisher = Optional(8).publisher.last { $0 > 10 }   // publishes nothing
    /// ```
    ///
    /// **Demand:** the result is computed when called; the returned publisher delivers on the first request.
    /// **Thread safety:** `predicate` runs at most once, on the calling thread, before this method returns.
    public func last(where predicate: (Output) -> Bool) -> Optional<Output>.Publisher {
        Optional<Output>.Publisher(output.flatMap { predicate($0) ? $0 : nil })
    }

    /// Publishes the value if it satisfies `isIncluded`; nothing otherwise.
    ///
    /// ```swift
    /// let even: Optional<Int>.Publisher = Optional(4).publisher.filter { $0 % 2 == 0 }   // publishes 4
    /// ```
    ///
    /// **Demand:** the result is computed when called; the returned publisher delivers on the first request.
    /// **Thread safety:** `isIncluded` runs at most once, on the calling thread, before this method returns.
    public func filter(_ isIncluded: (Output) -> Bool) -> Optional<Output>.Publisher {
        Optional<Output>.Publisher(output.flatMap { isIncluded($0) ? $0 : nil })
    }

    /// Publishes no value and finishes.
    ///
    /// ```swift
    /// let done: Empty<Int, Never> = Optional(1).publisher.ignoreOutput()
    /// ```
    ///
    /// **Demand:** the returned `Empty` finishes at subscription.
    /// **Thread safety:** pure; safe from any thread.
    public func ignoreOutput() -> Empty<Output, Failure> {
        Empty<Output, Failure>()
    }

    /// Publishes `transform(value)`, computed now; nothing if there is no value.
    ///
    /// ```swift
    /// let label: Optional<String>.Publisher = Optional(7).publisher.map { "#\($0)" }   // publishes "#7"
    /// ```
    ///
    /// **Demand:** the result is computed when called; the returned publisher delivers on the first request.
    /// **Thread safety:** `transform` runs at most once, on the calling thread, before this method returns.
    public func map<T>(_ transform: (Output) -> T) -> Optional<T>.Publisher {
        Optional<T>.Publisher(output.map(transform))
    }

    /// Publishes the value if `index` is 0; nothing otherwise. A negative `index` stops the program.
    ///
    /// ```swift
    /// let element: Optional<Int>.Publisher = Optional(9).publisher.output(at: 0)   // publishes 9
    /// ```
    ///
    /// **Demand:** the result is computed when called; the returned publisher delivers on the first request.
    /// **Thread safety:** pure; safe from any thread.
    public func output(at index: Int) -> Optional<Output>.Publisher {
        precondition(index >= 0, "output(at:) needs a non-negative index, got \(index)")
        return Optional<Output>.Publisher(index == 0 ? output : nil)
    }

    /// Publishes the value if `range` contains index 0; nothing otherwise. A range with a negative lower bound stops
    /// the program (as the generic ``Publisher/output(in:)``), and so, as in Combine, does an upper bound of
    /// `Int.max - 1` or more.
    ///
    /// ```swift
    /// let head: Optional<Int>.Publisher = Optional(9).publisher.output(in: 0..<3)   // publishes 9
    /// ```
    ///
    /// **Demand:** the result is computed when called; the returned publisher delivers on the first request.
    /// **Thread safety:** pure; safe from any thread.
    public func output<R: RangeExpression>(in range: R) -> Optional<Output>.Publisher where R.Bound == Int {
        let bounds = range.relative(to: 0..<Int.max)
        precondition(bounds.lowerBound >= 0, "output(in:) needs a non-negative lower bound, got \(bounds.lowerBound)")
        precondition(bounds.upperBound < Int.max - 1, "output(in:) needs an upper bound below Int.max - 1")
        return Optional<Output>.Publisher(bounds.contains(0) ? output : nil)
    }

    /// Publishes the value if `maxLength` is positive; nothing otherwise. A negative `maxLength` stops the program.
    ///
    /// ```swift
    /// let head: Optional<Int>.Publisher = Optional(9).publisher.prefix(1)   // publishes 9
    /// ```
    ///
    /// **Demand:** the result is computed when called; the returned publisher delivers on the first request.
    /// **Thread safety:** pure; safe from any thread.
    public func prefix(_ maxLength: Int) -> Optional<Output>.Publisher {
        precondition(maxLength >= 0, "prefix(_:) needs a non-negative maxLength, got \(maxLength)")
        return Optional<Output>.Publisher(maxLength > 0 ? output : nil)
    }

    /// Publishes the value if it satisfies `predicate`; nothing otherwise.
    ///
    /// ```swift
    /// let head: Optional<Int>.Publisher = Optional(9).publisher.prefix { $0 < 5 }   // publishes nothing
    /// ```
    ///
    /// **Demand:** the result is computed when called; the returned publisher delivers on the first request.
    /// **Thread safety:** `predicate` runs at most once, on the calling thread, before this method returns.
    public func prefix(while predicate: (Output) -> Bool) -> Optional<Output>.Publisher {
        Optional<Output>.Publisher(output.flatMap { predicate($0) ? $0 : nil })
    }

    /// Publishes `nextPartialResult(initialResult, value)`; nothing (not `initialResult`) if there is no value, as
    /// Apple's.
    ///
    /// ```swift
    /// let total: Optional<Int>.Publisher = Optional(4).publisher.reduce(10, +)   // publishes 14
    /// ```
    ///
    /// **Demand:** the result is computed when called; the returned publisher delivers on the first request.
    /// **Thread safety:** `nextPartialResult` runs at most once, on the calling thread, before this method returns.
    public func reduce<T>(_ initialResult: T, _ nextPartialResult: (T, Output) -> T) -> Optional<T>.Publisher {
        Optional<T>.Publisher(output.map { nextPartialResult(initialResult, $0) })
    }

    /// Publishes `nextPartialResult(initialResult, value)`, the only partial result; nothing if there is no value.
    ///
    /// ```swift
    /// let running: Optional<Int>.Publisher = Optional(4).publisher.scan(10, +)   // publishes 14
    /// ```
    ///
    /// **Demand:** the result is computed when called; the returned publisher delivers on the first request.
    /// **Thread safety:** `nextPartialResult` runs at most once, on the calling thread, before this method returns.
    public func scan<T>(_ initialResult: T, _ nextPartialResult: (T, Output) -> T) -> Optional<T>.Publisher {
        Optional<T>.Publisher(output.map { nextPartialResult(initialResult, $0) })
    }

    /// Publishes the value, if any: a single value has no duplicates, so `predicate` is never called.
    ///
    /// ```swift
    /// let unique: Optional<Int>.Publisher = Optional(1).publisher.removeDuplicates { $0 == $1 }
    /// ```
    ///
    /// **Demand:** the result is computed when called; the returned publisher delivers on the first request.
    /// **Thread safety:** pure; safe from any thread.
    public func removeDuplicates(by predicate: (Output, Output) -> Bool) -> Optional<Output>.Publisher {
        self
    }

    /// Publishes the value, if any: this publisher never fails, so `output` is never used.
    ///
    /// ```swift
    /// let safe: Optional<Int>.Publisher = Optional(1).publisher.replaceError(with: 0)   // publishes 1
    /// ```
    ///
    /// **Demand:** the result is computed when called; the returned publisher delivers on the first request.
    /// **Thread safety:** pure; safe from any thread.
    public func replaceError(with output: Output) -> Optional<Output>.Publisher {
        self
    }

    /// Publishes the value, or `output` if there is none.
    ///
    /// ```swift
    /// let filled: Just<Int> = Optional<Int>.none.publisher.replaceEmpty(with: 0)   // Just(0)
    /// ```
    ///
    /// **Demand:** the result is computed when called; the returned `Just` delivers on the first request.
    /// **Thread safety:** pure; safe from any thread.
    public func replaceEmpty(with output: Output) -> Just<Output> {
        Just<Output>(self.output ?? output)
    }

    /// Publishes the value, if any: this publisher never fails, so there is nothing to retry.
    ///
    /// ```swift
    /// let same: Optional<Int>.Publisher = Optional(1).publisher.retry(3)   // publishes 1
    /// ```
    ///
    /// **Demand:** the result is computed when called; the returned publisher delivers on the first request.
    /// **Thread safety:** pure; safe from any thread.
    public func retry(_ times: Int) -> Optional<Output>.Publisher {
        self
    }
}
