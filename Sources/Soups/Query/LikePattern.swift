/// A SQL `LIKE` pattern with SQLite's rules.
///
/// `%` matches any run of characters (including none) and `_` exactly one character, where a
/// character is a Unicode scalar as SQLite counts UTF-8 characters. Letters compare
/// case-insensitively for ASCII only, as SQLite's default `LIKE` does: `é` never matches `É`.
/// There is no escape character, as with SQLite's `LIKE` without `ESCAPE`.
struct LikePattern: Hashable, Sendable {
    private let pattern: [Unicode.Scalar]

    init(_ pattern: String) {
        self.pattern = Array(pattern.unicodeScalars)
    }

    /// Whether `text` matches the whole pattern.
    ///
    /// - Complexity: O(n × m) in the worst case, using the classic greedy walk that backtracks
    ///   only to the last `%`.
    func matches(_ text: String) -> Bool {
        let text = Array(text.unicodeScalars)
        var textIndex = 0
        var patternIndex = 0
        var lastPercent: Int?
        var resumeAt = 0
        while textIndex < text.count {
            if patternIndex < pattern.count, pattern[patternIndex] == "%" {
                lastPercent = patternIndex
                patternIndex += 1
                resumeAt = textIndex
            } else if patternIndex < pattern.count,
                pattern[patternIndex] == "_" || Self.foldsEqual(pattern[patternIndex], text[textIndex])
            {
                patternIndex += 1
                textIndex += 1
            } else if let percent = lastPercent {
                patternIndex = percent + 1
                resumeAt += 1
                textIndex = resumeAt
            } else {
                return false
            }
        }
        while patternIndex < pattern.count, pattern[patternIndex] == "%" {
            patternIndex += 1
        }
        return patternIndex == pattern.count
    }

    private static func foldsEqual(_ lhs: Unicode.Scalar, _ rhs: Unicode.Scalar) -> Bool {
        lowerASCII(lhs) == lowerASCII(rhs)
    }

    private static func lowerASCII(_ scalar: Unicode.Scalar) -> UInt32 {
        let value = scalar.value
        return (0x41...0x5A).contains(value) ? value + 0x20 : value
    }
}
