// The operator specializations Apple's Combine declares on `Publishers.Sequence`.
//
// File layout: one file per publisher type for these specialization families (`Just`, `Optional.Publisher`,
// `Result.Publisher`, `Publishers.Sequence`), the agreed exception to "one operator per file".
//
// These methods shadow the generic `Publisher` operators for a `Publishers.Sequence` receiver, exactly where Apple's
// do, so chains keep Apple's static types (`[1, 2].publisher.map { $0 * 10 }` is a `Publishers.Sequence<[Int], Never>`)
// and cost nothing per element at delivery. They are EAGER: each one walks `sequence` when it is called, on the
// calling thread, and returns a publisher that already holds the outcome (an array, a lazy standard-library wrapper
// such as `DropFirstSequence`, or a single result). A closure passed to one of them runs during the call, once per
// element it needs, and never again per subscriber. Consequently an infinite sequence makes the element-wise
// operators (`map`, `filter`, `scan`, `collect()`, `reduce`...) loop forever, as Apple's do: use them on finite
// sequences. Operators with a `Failure == Never` constraint answer with an `Optional.Publisher` or a `Just`; the
// others keep `Failure`. No lock is taken and nothing is subscribed.

extension Publishers.Sequence where Failure == Never {
    /// Publishes the smallest element by `areInIncreasingOrder`, or nothing for an empty sequence.
    ///
    /// ```swift
    /// let shortest: Optional<String>.Publisher = ["bb", "a"].publisher.min { $0.count < $1.count }   // "a"
    /// ```
    ///
    /// **Demand:** the result is computed when called; the returned publisher delivers on the first request.
    /// **Thread safety:** `areInIncreasingOrder` runs during the call, on the calling thread.
    @inlinable
    public func min(by areInIncreasingOrder: (Elements.Element, Elements.Element) -> Bool)
        -> Optional<Elements.Element>.Publisher
    {
        Optional<Elements.Element>.Publisher(sequence.min(by: areInIncreasingOrder))
    }

    /// Publishes the largest element by `areInIncreasingOrder`, or nothing for an empty sequence.
    ///
    /// ```swift
    /// let longest: Optional<String>.Publisher = ["bb", "a"].publisher.max { $0.count < $1.count }   // "bb"
    /// ```
    ///
    /// **Demand:** the result is computed when called; the returned publisher delivers on the first request.
    /// **Thread safety:** `areInIncreasingOrder` runs during the call, on the calling thread.
    @inlinable
    public func max(by areInIncreasingOrder: (Elements.Element, Elements.Element) -> Bool)
        -> Optional<Elements.Element>.Publisher
    {
        Optional<Elements.Element>.Publisher(sequence.max(by: areInIncreasingOrder))
    }

    /// Publishes the first element satisfying `predicate`, or nothing.
    ///
    /// ```swift
    /// let firstEven: Optional<Int>.Publisher = [1, 4, 6].publisher.first { $0 % 2 == 0 }   // 4
    /// ```
    ///
    /// **Demand:** the result is computed when called; the returned publisher delivers on the first request.
    /// **Thread safety:** `predicate` runs during the call, on the calling thread, until it first returns `true`.
    @inlinable
    public func first(where predicate: (Elements.Element) -> Bool) -> Optional<Elements.Element>.Publisher {
        Optional<Elements.Element>.Publisher(sequence.first(where: predicate))
    }
}

extension Publishers.Sequence {
    /// Publishes whether every element satisfies `predicate` (`true` for an empty sequence).
    ///
    /// ```swift
    /// let allPositive: Result<Bool, Never>.Publisher = [1, 2].publisher.allSatisfy { $0 > 0 }   // true
    /// ```
    ///
    /// **Demand:** the result is computed when called; the returned publisher delivers on the first request.
    /// **Thread safety:** `predicate` runs during the call, on the calling thread, until it first returns `false`.
    @inlinable
    public func allSatisfy(_ predicate: (Elements.Element) -> Bool) -> Result<Bool, Failure>.Publisher {
        Result<Bool, Failure>.Publisher(.success(sequence.allSatisfy(predicate)))
    }

    /// Publishes whether every element satisfies the throwing `predicate`, or fails with the error it throws.
    ///
    /// ```swift
    /// let valid: Result<Bool, Error>.Publisher = [1, 2].publisher.tryAllSatisfy { try check($0) }
    /// ```
    ///
    /// **Demand:** the result is computed when called; the returned publisher delivers on the first request.
    /// **Thread safety:** `predicate` runs during the call, on the calling thread, until it returns `false` or throws.
    @inlinable
    public func tryAllSatisfy(_ predicate: (Elements.Element) throws -> Bool) -> Result<Bool, Error>.Publisher {
        Result<Bool, Error>.Publisher(Result { try sequence.allSatisfy(predicate) })
    }

    /// Publishes all the elements as one array.
    ///
    /// ```swift
    /// let all: Result<[Int], Never>.Publisher = (1...3).publisher.collect()   // [1, 2, 3]
    /// ```
    ///
    /// **Demand:** the result is computed when called; the returned publisher delivers on the first request.
    /// **Thread safety:** the sequence is iterated during the call, on the calling thread.
    @inlinable
    public func collect() -> Result<[Elements.Element], Failure>.Publisher {
        Result<[Elements.Element], Failure>.Publisher(.success(Array(sequence)))
    }

    /// Publishes the non-nil results of `transform`, computed now for every element.
    ///
    /// ```swift
    /// let numbers: Publishers.Sequence<[Int], Never> = ["1", "x", "3"].publisher.compactMap { Int($0) }   // 1, 3
    /// ```
    ///
    /// **Demand:** the result is computed when called; the returned publisher delivers one element per unit of
    /// demand.
    /// **Thread safety:** `transform` runs during the call, on the calling thread, once per element.
    @inlinable
    public func compactMap<T>(_ transform: (Elements.Element) -> T?) -> Publishers.Sequence<[T], Failure> {
        Publishers.Sequence<[T], Failure>(sequence: sequence.compactMap(transform))
    }

    /// Publishes whether some element satisfies `predicate`.
    ///
    /// ```swift
    /// let hasEven: Result<Bool, Never>.Publisher = [1, 3].publisher.contains { $0 % 2 == 0 }   // false
    /// ```
    ///
    /// **Demand:** the result is computed when called; the returned publisher delivers on the first request.
    /// **Thread safety:** `predicate` runs during the call, on the calling thread, until it first returns `true`.
    @inlinable
    public func contains(where predicate: (Elements.Element) -> Bool) -> Result<Bool, Failure>.Publisher {
        Result<Bool, Failure>.Publisher(.success(sequence.contains(where: predicate)))
    }

    /// Publishes whether some element satisfies the throwing `predicate`, or fails with the error it throws.
    ///
    /// ```swift
    /// let found: Result<Bool, Error>.Publisher = [1, 3].publisher.tryContains { try special($0) }
    /// ```
    ///
    /// **Demand:** the result is computed when called; the returned publisher delivers on the first request.
    /// **Thread safety:** `predicate` runs during the call, on the calling thread, until it returns `true` or throws.
    @inlinable
    public func tryContains(where predicate: (Elements.Element) throws -> Bool) -> Result<Bool, Error>.Publisher {
        Result<Bool, Error>.Publisher(Result { try sequence.contains(where: predicate) })
    }

    /// Publishes the elements from the first one that fails `predicate` on.
    ///
    /// ```swift
    /// let rest: Publishers.Sequence<DropWhileSequence<[Int]>, Never> = [1, 2, 5, 1].publisher.drop { $0 < 3 }
    /// ```
    ///
    /// **Demand:** the result is computed when called; the returned publisher delivers one element per unit of
    /// demand.
    /// **Thread safety:** `predicate` runs during the call, on the calling thread, until it first returns `false`.
    @inlinable
    public func drop(while predicate: (Elements.Element) -> Bool)
        -> Publishers.Sequence<DropWhileSequence<Elements>, Failure>
    {
        Publishers.Sequence<DropWhileSequence<Elements>, Failure>(sequence: sequence.drop(while: predicate))
    }

    /// Publishes the elements after the first `count`. A negative `count` stops the program.
    ///
    /// ```swift
    /// let rest: Publishers.Sequence<DropFirstSequence<[Int]>, Never> = [1, 2, 3].publisher.dropFirst()   // 2, 3
    /// ```
    ///
    /// **Demand:** the result is computed when called; the returned publisher delivers one element per unit of
    /// demand.
    /// **Thread safety:** pure; safe from any thread.
    @inlinable
    public func dropFirst(_ count: Int = 1) -> Publishers.Sequence<DropFirstSequence<Elements>, Failure> {
        precondition(count >= 0, "dropFirst(_:) needs a non-negative count, got \(count)")
        return Publishers.Sequence<DropFirstSequence<Elements>, Failure>(sequence: sequence.dropFirst(count))
    }

    /// Publishes the elements that satisfy `isIncluded`, selected now.
    ///
    /// ```swift
    /// let evens: Publishers.Sequence<[Int], Never> = [1, 2, 3, 4].publisher.filter { $0 % 2 == 0 }   // 2, 4
    /// ```
    ///
    /// **Demand:** the result is computed when called; the returned publisher delivers one element per unit of
    /// demand.
    /// **Thread safety:** `isIncluded` runs during the call, on the calling thread, once per element.
    @inlinable
    public func filter(_ isIncluded: (Elements.Element) -> Bool) -> Publishers.Sequence<[Elements.Element], Failure> {
        Publishers.Sequence<[Elements.Element], Failure>(sequence: sequence.filter(isIncluded))
    }

    /// Publishes no element and finishes.
    ///
    /// ```swift
    /// let done: Empty<Int, Never> = [1, 2].publisher.ignoreOutput()
    /// ```
    ///
    /// **Demand:** the returned `Empty` finishes at subscription.
    /// **Thread safety:** pure; safe from any thread (the sequence is not iterated).
    @inlinable
    public func ignoreOutput() -> Empty<Elements.Element, Failure> {
        Empty<Elements.Element, Failure>()
    }

    /// Publishes `transform` of every element, computed now.
    ///
    /// ```swift
    /// let tens: Publishers.Sequence<[Int], Never> = [1, 2].publisher.map { $0 * 10 }   // 10, 20
    /// ```
    ///
    /// **Demand:** the result is computed when called; the returned publisher delivers one element per unit of
    /// demand.
    /// **Thread safety:** `transform` runs during the call, on the calling thread, once per element.
    @inlinable
    public func map<T>(_ transform: (Elements.Element) -> T) -> Publishers.Sequence<[T], Failure> {
        Publishers.Sequence<[T], Failure>(sequence: sequence.map(transform))
    }

    /// Publishes at most the first `maxLength` elements. A negative `maxLength` stops the program.
    ///
    /// ```swift
    /// let head: Publishers.Sequence<PrefixSequence<[Int]>, Never> = [1, 2, 3].publisher.prefix(2)   // 1, 2
    /// ```
    ///
    /// **Demand:** the result is computed when called; the returned publisher delivers one element per unit of
    /// demand.
    /// **Thread safety:** pure; safe from any thread.
    @inlinable
    public func prefix(_ maxLength: Int) -> Publishers.Sequence<PrefixSequence<Elements>, Failure> {
        precondition(maxLength >= 0, "prefix(_:) needs a non-negative maxLength, got \(maxLength)")
        return Publishers.Sequence<PrefixSequence<Elements>, Failure>(sequence: sequence.prefix(maxLength))
    }

    /// Publishes the elements before the first one that fails `predicate`.
    ///
    /// ```swift
    /// let head: Publishers.Sequence<[Int], Never> = [1, 2, 5, 1].publisher.prefix { $0 < 3 }   // 1, 2
    /// ```
    ///
    /// **Demand:** the result is computed when called; the returned publisher delivers one element per unit of
    /// demand.
    /// **Thread safety:** `predicate` runs during the call, on the calling thread, until it first returns `false`.
    @inlinable
    public func prefix(while predicate: (Elements.Element) -> Bool)
        -> Publishers.Sequence<[Elements.Element], Failure>
    {
        Publishers.Sequence<[Elements.Element], Failure>(sequence: Array(sequence.prefix(while: predicate)))
    }

    /// Publishes the fold of all elements with `nextPartialResult`, starting from `initialResult`, computed now.
    ///
    /// ```swift
    /// let sum: Result<Int, Never>.Publisher = [1, 2, 3].publisher.reduce(0, +)   // 6
    /// ```
    ///
    /// **Demand:** the result is computed when called; the returned publisher delivers on the first request.
    /// **Thread safety:** `nextPartialResult` runs during the call, on the calling thread, once per element.
    @inlinable
    public func reduce<T>(_ initialResult: T, _ nextPartialResult: @escaping (T, Elements.Element) -> T)
        -> Result<T, Failure>.Publisher
    {
        Result<T, Failure>.Publisher(.success(sequence.reduce(initialResult, nextPartialResult)))
    }

    /// Publishes the fold of all elements with the throwing `nextPartialResult`, or fails with the error it throws.
    ///
    /// ```swift
    /// let sum: Result<Int, Error>.Publisher = [1, 2, 3].publisher.tryReduce(0) { try checkedAdd($0, $1) }
    /// ```
    ///
    /// **Demand:** the result is computed when called; the returned publisher delivers on the first request.
    /// **Thread safety:** `nextPartialResult` runs during the call, on the calling thread, until it throws.
    @inlinable
    public func tryReduce<T>(_ initialResult: T, _ nextPartialResult: @escaping (T, Elements.Element) throws -> T)
        -> Result<T, Error>.Publisher
    {
        Result<T, Error>.Publisher(Result { try sequence.reduce(initialResult, nextPartialResult) })
    }

    /// Publishes the elements with every nil replaced by `output`.
    ///
    /// ```swift
    /// let filled: Publishers.Sequence<[Int?], Never> = [1, nil, 3].publisher.replaceNil(with: 0)   // 1, 0, 3
    /// ```
    ///
    /// **Demand:** the result is computed when called; the returned publisher delivers one element per unit of
    /// demand.
    /// **Thread safety:** the sequence is iterated during the call, on the calling thread.
    @inlinable
    public func replaceNil<T>(with output: T) -> Publishers.Sequence<[Elements.Element], Failure>
    where Elements.Element == T? {
        Publishers.Sequence<[Elements.Element], Failure>(sequence: sequence.map { $0 ?? output })
    }

    /// Publishes every partial result of folding the elements with `nextPartialResult`, computed now.
    ///
    /// ```swift
    /// let running: Publishers.Sequence<[Int], Never> = [1, 2, 3].publisher.scan(0, +)   // 1, 3, 6
    /// ```
    ///
    /// **Demand:** the result is computed when called; the returned publisher delivers one element per unit of
    /// demand.
    /// **Thread safety:** `nextPartialResult` runs during the call, on the calling thread, once per element.
    @inlinable
    public func scan<T>(_ initialResult: T, _ nextPartialResult: @escaping (T, Elements.Element) -> T)
        -> Publishers.Sequence<[T], Failure>
    {
        var partial = initialResult
        var partials: [T] = []
        partials.reserveCapacity(sequence.underestimatedCount)
        for element in sequence {
            partial = nextPartialResult(partial, element)
            partials.append(partial)
        }
        return Publishers.Sequence<[T], Failure>(sequence: partials)
    }

    /// Publishes the same elements with the failure type `E` (it never fails).
    ///
    /// ```swift
    /// let typed: Publishers.Sequence<[Int], URLError> = [1, 2].publisher.setFailureType(to: URLError.self)
    /// ```
    ///
    /// **Demand:** the result is computed when called; the returned publisher delivers one element per unit of
    /// demand.
    /// **Thread safety:** pure; safe from any thread.
    @inlinable
    public func setFailureType<E: Error>(to error: E.Type) -> Publishers.Sequence<Elements, E> {
        Publishers.Sequence<Elements, E>(sequence: sequence)
    }
}

extension Publishers.Sequence where Elements.Element: Equatable {
    /// Publishes the elements without consecutive repeats, selected now.
    ///
    /// ```swift
    /// let changes: Publishers.Sequence<[Int], Never> = [1, 1, 2, 1].publisher.removeDuplicates()   // 1, 2, 1
    /// ```
    ///
    /// **Demand:** the result is computed when called; the returned publisher delivers one element per unit of
    /// demand.
    /// **Thread safety:** the sequence is iterated during the call, on the calling thread.
    @inlinable
    public func removeDuplicates() -> Publishers.Sequence<[Elements.Element], Failure> {
        var kept: [Elements.Element] = []
        for element in sequence where kept.last != element {
            kept.append(element)
        }
        return Publishers.Sequence<[Elements.Element], Failure>(sequence: kept)
    }

    /// Publishes whether the sequence contains `output`.
    ///
    /// ```swift
    /// let found: Result<Bool, Never>.Publisher = [1, 2].publisher.contains(2)   // true
    /// ```
    ///
    /// **Demand:** the result is computed when called; the returned publisher delivers on the first request.
    /// **Thread safety:** the sequence is iterated during the call, on the calling thread.
    @inlinable
    public func contains(_ output: Elements.Element) -> Result<Bool, Failure>.Publisher {
        Result<Bool, Failure>.Publisher(.success(sequence.contains(output)))
    }
}

extension Publishers.Sequence where Failure == Never, Elements.Element: Comparable {
    /// Publishes the smallest element, or nothing for an empty sequence.
    ///
    /// ```swift
    /// let smallest: Optional<Int>.Publisher = [3, 1, 2].publisher.min()   // 1
    /// ```
    ///
    /// **Demand:** the result is computed when called; the returned publisher delivers on the first request.
    /// **Thread safety:** the sequence is iterated during the call, on the calling thread.
    @inlinable
    public func min() -> Optional<Elements.Element>.Publisher {
        Optional<Elements.Element>.Publisher(sequence.min())
    }

    /// Publishes the largest element, or nothing for an empty sequence.
    ///
    /// ```swift
    /// let largest: Optional<Int>.Publisher = [3, 1, 2].publisher.max()   // 3
    /// ```
    ///
    /// **Demand:** the result is computed when called; the returned publisher delivers on the first request.
    /// **Thread safety:** the sequence is iterated during the call, on the calling thread.
    @inlinable
    public func max() -> Optional<Elements.Element>.Publisher {
        Optional<Elements.Element>.Publisher(sequence.max())
    }
}

extension Publishers.Sequence where Elements: Collection, Failure == Never {
    /// Publishes the first element, or nothing for an empty collection.
    ///
    /// ```swift
    /// let first: Optional<Int>.Publisher = [7, 8].publisher.first()   // 7
    /// ```
    ///
    /// **Demand:** the result is computed when called; the returned publisher delivers on the first request.
    /// **Thread safety:** pure; safe from any thread.
    @inlinable
    public func first() -> Optional<Elements.Element>.Publisher {
        Optional<Elements.Element>.Publisher(sequence.first)
    }

    /// Publishes the element at `index`, or nothing if the collection has no such index.
    ///
    /// ```swift
    /// let second: Optional<Character>.Publisher = "abc".publisher.output(at: "abc".index(after: "abc".startIndex))
    /// ```
    ///
    /// **Demand:** the result is computed when called; the returned publisher delivers on the first request.
    /// **Thread safety:** pure; safe from any thread.
    @inlinable
    public func output(at index: Elements.Index) -> Optional<Elements.Element>.Publisher {
        Optional<Elements.Element>.Publisher(sequence.indices.contains(index) ? sequence[index] : nil)
    }
}

extension Publishers.Sequence where Elements: Collection {
    /// Publishes the number of elements.
    ///
    /// ```swift
    /// let count: Result<Int, AppError>.Publisher = Publishers.Sequence<Set<Int>, AppError>(sequence: [1, 2]).count()
    /// ```
    ///
    /// **Demand:** the result is computed when called; the returned publisher delivers on the first request.
    /// **Thread safety:** pure; safe from any thread.
    @inlinable
    public func count() -> Result<Int, Failure>.Publisher {
        Result<Int, Failure>.Publisher(.success(sequence.count))
    }

    /// Publishes the elements at the positions in `range`. A range outside the collection's indices stops the
    /// program (as a collection subscript does).
    ///
    /// ```swift
    /// let middle: Publishers.Sequence<[Character], Never> = "abcd".publisher.output(in: someRangeOfIndices)
    /// ```
    ///
    /// **Demand:** the result is computed when called; the returned publisher delivers one element per unit of
    /// demand.
    /// **Thread safety:** pure; safe from any thread.
    @inlinable
    public func output(in range: Range<Elements.Index>) -> Publishers.Sequence<[Elements.Element], Failure> {
        Publishers.Sequence<[Elements.Element], Failure>(sequence: Array(sequence[range]))
    }
}

extension Publishers.Sequence where Elements: BidirectionalCollection, Failure == Never {
    /// Publishes the last element, or nothing for an empty collection.
    ///
    /// ```swift
    /// let last: Optional<Int>.Publisher = [7, 8].publisher.last()   // 8
    /// ```
    ///
    /// **Demand:** the result is computed when called; the returned publisher delivers on the first request.
    /// **Thread safety:** pure; safe from any thread.
    @inlinable
    public func last() -> Optional<Elements.Element>.Publisher {
        Optional<Elements.Element>.Publisher(sequence.last)
    }

    /// Publishes the last element satisfying `predicate`, or nothing.
    ///
    /// ```swift
    /// let lastEven: Optional<Int>.Publisher = [2, 4, 5].publisher.last { $0 % 2 == 0 }   // 4
    /// ```
    ///
    /// **Demand:** the result is computed when called; the returned publisher delivers on the first request.
    /// **Thread safety:** `predicate` runs during the call, on the calling thread, from the end backwards.
    @inlinable
    public func last(where predicate: (Elements.Element) -> Bool) -> Optional<Elements.Element>.Publisher {
        Optional<Elements.Element>.Publisher(sequence.last(where: predicate))
    }
}

extension Publishers.Sequence where Elements: RandomAccessCollection, Failure == Never {
    /// Publishes the element at `index`, or nothing if the collection has no such index.
    ///
    /// ```swift
    /// let second: Optional<Int>.Publisher = [7, 8, 9].publisher.output(at: 1)   // 8
    /// ```
    ///
    /// **Demand:** the result is computed when called; the returned publisher delivers on the first request.
    /// **Thread safety:** pure; safe from any thread.
    @inlinable
    public func output(at index: Elements.Index) -> Optional<Elements.Element>.Publisher {
        Optional<Elements.Element>.Publisher(sequence.indices.contains(index) ? sequence[index] : nil)
    }

    /// Publishes the number of elements.
    ///
    /// ```swift
    /// let count: Just<Int> = [7, 8, 9].publisher.count()   // Just(3)
    /// ```
    ///
    /// **Demand:** the result is computed when called; the returned `Just` delivers on the first request.
    /// **Thread safety:** pure; safe from any thread.
    @inlinable
    public func count() -> Just<Int> {
        Just<Int>(sequence.count)
    }
}

extension Publishers.Sequence where Elements: RandomAccessCollection {
    /// Publishes the elements at the positions in `range`. A range outside the collection's indices stops the
    /// program (as a collection subscript does).
    ///
    /// ```swift
    /// let middle: Publishers.Sequence<[Int], Never> = [7, 8, 9, 10].publisher.output(in: 1..<3)   // 8, 9
    /// ```
    ///
    /// **Demand:** the result is computed when called; the returned publisher delivers one element per unit of
    /// demand.
    /// **Thread safety:** pure; safe from any thread.
    @inlinable
    public func output(in range: Range<Elements.Index>) -> Publishers.Sequence<[Elements.Element], Failure> {
        Publishers.Sequence<[Elements.Element], Failure>(sequence: Array(sequence[range]))
    }

    /// Publishes the number of elements.
    ///
    /// ```swift
    /// let count: Result<Int, URLError>.Publisher = [7, 8].publisher.setFailureType(to: URLError.self).count()
    /// ```
    ///
    /// **Demand:** the result is computed when called; the returned publisher delivers on the first request.
    /// **Thread safety:** pure; safe from any thread.
    @inlinable
    public func count() -> Result<Int, Failure>.Publisher {
        Result<Int, Failure>.Publisher(.success(sequence.count))
    }
}

extension Publishers.Sequence where Elements: RangeReplaceableCollection {
    /// Publishes `elements`, then this publisher's elements.
    ///
    /// ```swift
    /// let all: Publishers.Sequence<[Int], Never> = [3, 4].publisher.prepend(1, 2)   // 1, 2, 3, 4
    /// ```
    ///
    /// **Demand:** the result is computed when called; the returned publisher delivers one element per unit of
    /// demand.
    /// **Thread safety:** pure; safe from any thread.
    @inlinable
    public func prepend(_ elements: Elements.Element...) -> Publishers.Sequence<Elements, Failure> {
        prepend(elements)
    }

    /// Publishes the elements of `elements` (iterated now), then this publisher's elements.
    ///
    /// ```swift
    /// let all: Publishers.Sequence<[Int], Never> = [3, 4].publisher.prepend(1...2)   // 1, 2, 3, 4
    /// ```
    ///
    /// **Demand:** the result is computed when called; the returned publisher delivers one element per unit of
    /// demand.
    /// **Thread safety:** `elements` is iterated during the call, on the calling thread.
    @inlinable
    public func prepend<S: Sequence>(_ elements: S) -> Publishers.Sequence<Elements, Failure>
    where Elements.Element == S.Element {
        // Sized up front from both counts, then filled, as Combine does (observable through a collection's hooks).
        var combined = Elements()
        combined.reserveCapacity(sequence.count + elements.underestimatedCount)
        combined.append(contentsOf: elements)
        combined.append(contentsOf: sequence)
        return Publishers.Sequence<Elements, Failure>(sequence: combined)
    }

    /// Publishes the elements of `publisher`, then this publisher's elements.
    ///
    /// ```swift
    /// let all: Publishers.Sequence<[Int], Never> = [3, 4].publisher.prepend([1, 2].publisher)   // 1, 2, 3, 4
    /// ```
    ///
    /// **Demand:** the result is computed when called; the returned publisher delivers one element per unit of
    /// demand.
    /// **Thread safety:** pure; safe from any thread.
    @inlinable
    public func prepend(_ publisher: Publishers.Sequence<Elements, Failure>) -> Publishers.Sequence<Elements, Failure> {
        var combined = publisher.sequence
        combined.append(contentsOf: sequence)
        return Publishers.Sequence<Elements, Failure>(sequence: combined)
    }

    /// Publishes this publisher's elements, then `elements`.
    ///
    /// ```swift
    /// let all: Publishers.Sequence<[Int], Never> = [1, 2].publisher.append(3, 4)   // 1, 2, 3, 4
    /// ```
    ///
    /// **Demand:** the result is computed when called; the returned publisher delivers one element per unit of
    /// demand.
    /// **Thread safety:** pure; safe from any thread.
    @inlinable
    public func append(_ elements: Elements.Element...) -> Publishers.Sequence<Elements, Failure> {
        append(elements)
    }

    /// Publishes this publisher's elements, then the elements of `elements` (iterated now).
    ///
    /// ```swift
    /// let all: Publishers.Sequence<[Int], Never> = [1, 2].publisher.append(3...4)   // 1, 2, 3, 4
    /// ```
    ///
    /// **Demand:** the result is computed when called; the returned publisher delivers one element per unit of
    /// demand.
    /// **Thread safety:** `elements` is iterated during the call, on the calling thread.
    @inlinable
    public func append<S: Sequence>(_ elements: S) -> Publishers.Sequence<Elements, Failure>
    where Elements.Element == S.Element {
        var combined = sequence
        combined.append(contentsOf: elements)
        return Publishers.Sequence<Elements, Failure>(sequence: combined)
    }

    /// Publishes this publisher's elements, then the elements of `publisher`.
    ///
    /// ```swift
    /// let all: Publishers.Sequence<[Int], Never> = [1, 2].publisher.append([3, 4].publisher)   // 1, 2, 3, 4
    /// ```
    ///
    /// **Demand:** the result is computed when called; the returned publisher delivers one element per unit of
    /// demand.
    /// **Thread safety:** pure; safe from any thread.
    @inlinable
    public func append(_ publisher: Publishers.Sequence<Elements, Failure>) -> Publishers.Sequence<Elements, Failure> {
        append(publisher.sequence)
    }
}
