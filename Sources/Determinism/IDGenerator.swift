import Synchronization

/// A source of unique identifiers, injected so that tests and replays get predictable ids.
public protocol IDGenerator: Sendable {
    /// Returns the next identifier; never the same one twice from one generator.
    func next() -> UInt64
}

/// An ``IDGenerator`` that counts up from a starting value: `1, 2, 3, …` by default.
public final class IncrementingIDGenerator: IDGenerator {
    private let counter: Mutex<UInt64>

    /// Creates a generator whose first identifier is `first`.
    public init(first: UInt64 = 1) {
        counter = Mutex(first)
    }

    public func next() -> UInt64 {
        counter.withLock { value in
            defer { value += 1 }
            return value
        }
    }
}
