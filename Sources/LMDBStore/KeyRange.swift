/// A range of keys for cursor iteration, in raw byte order.
public struct KeyRange: Hashable, Sendable {
    /// The first key included, or `nil` to start at the first key.
    public var lowerBound: [UInt8]?
    /// The key where the range ends, or `nil` to run to the last key.
    public var upperBound: [UInt8]?
    /// Whether ``upperBound`` itself is part of the range.
    public var includesUpperBound: Bool

    /// Creates a range from `lowerBound` (inclusive) to `upperBound`.
    public init(from lowerBound: [UInt8]? = nil, to upperBound: [UInt8]? = nil, includesUpperBound: Bool = false) {
        self.lowerBound = lowerBound
        self.upperBound = upperBound
        self.includesUpperBound = includesUpperBound
    }

    /// Every key.
    public static let all = KeyRange()

    /// Every key that starts with `prefix`.
    public static func prefix(_ prefix: [UInt8]) -> KeyRange {
        // The keys with a prefix end just before the prefix with its last non-0xFF byte incremented.
        var upper = prefix
        while let last = upper.last, last == 0xFF { upper.removeLast() }
        guard !upper.isEmpty else { return KeyRange(from: prefix) }
        upper[upper.count - 1] += 1
        return KeyRange(from: prefix, to: upper)
    }

    /// Whether `key` is at or beyond the upper end of the range.
    func isPastUpperBound(_ key: some Collection<UInt8>) -> Bool {
        guard let upperBound else { return false }
        if includesUpperBound { return upperBound.lexicographicallyPrecedes(key) }
        return !key.lexicographicallyPrecedes(upperBound)
    }

    /// Whether `key` is before the lower end of the range.
    func isBeforeLowerBound(_ key: some Collection<UInt8>) -> Bool {
        guard let lowerBound else { return false }
        return key.lexicographicallyPrecedes(lowerBound)
    }
}
