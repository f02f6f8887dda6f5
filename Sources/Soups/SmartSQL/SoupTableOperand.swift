/// SQLite's operands turned into index operands, as SQLite compares them with a column.
///
/// An integer column compared with `2.5` matches no equality, starts at 3 for `> 2.5`, and so
/// on; a numeric column compared with numeric text compares the number. What SQLite's rules
/// leave to the operand's own affinity, which `xFilter` cannot see (a number compared with a
/// text column), is `unknown`: the walk then widens to a superset and SQLite, which checks
/// every row again, decides.
enum SoupTableOperand {
    /// An equality operand.
    enum Equality: Hashable, Sendable {
        case value(SmartSQLValue)
        /// NULL, for `IS`: the walk reads the NULL keys.
        case null
        case matchesNothing
        case unknown
    }

    /// One end of a range.
    enum Bound: Hashable, Sendable {
        case bound(SoupIndexRange.Bound)
        /// No value of the column lies beyond the operand: the end stays open.
        case open
        case matchesNothing
        case unknown
    }

    /// The operand of `=` (or `IS`, when `matchesNull`) with a column of `affinity`; `nil`
    /// stands for a BLOB.
    static func equality(_ value: SmartSQLValue?, affinity: SoupTableColumn.Affinity, matchesNull: Bool) -> Equality {
        guard let value else { return .unknown }
        switch (affinity, value) {
        case (_, .null):
            return matchesNull ? .null : .matchesNothing
        case (.text, .text):
            return .value(value)
        case (.text, _):
            return .unknown
        case (_, .text(let text)):
            guard let number = number(text) else { return .unknown }
            return equality(number, affinity: affinity, matchesNull: matchesNull)
        case (.real, .integer(let number)):
            return .value(.real(Double(number)))
        case (.real, .real(let number)):
            return number.isNaN ? .matchesNothing : .value(value)
        case (.integer, .integer):
            return .value(value)
        case (.integer, .real(let number)):
            // An integer column holds no fraction, nor anything past Int64.
            guard number == number.rounded(), let integer = Int64(exactly: number) else { return .matchesNothing }
            return .value(.integer(integer))
        }
    }

    /// The operand of `>`/`>=` (`isLower`) or `<`/`<=` with a column of `affinity`.
    static func bound(
        _ value: SmartSQLValue?, affinity: SoupTableColumn.Affinity, isLower: Bool, isInclusive: Bool
    ) -> Bound {
        guard let value else { return .unknown }
        switch (affinity, value) {
        case (_, .null):
            return .matchesNothing
        case (.text, .text):
            return .bound(SoupIndexRange.Bound(value: value, isInclusive: isInclusive))
        case (.text, _):
            return .unknown
        case (_, .text(let text)):
            guard let number = number(text) else { return .unknown }
            return bound(number, affinity: affinity, isLower: isLower, isInclusive: isInclusive)
        case (.real, .integer(let number)):
            return .bound(SoupIndexRange.Bound(value: .real(Double(number)), isInclusive: isInclusive))
        case (.real, .real(let number)):
            return number.isNaN ? .matchesNothing : .bound(SoupIndexRange.Bound(value: value, isInclusive: isInclusive))
        case (.integer, .integer):
            return .bound(SoupIndexRange.Bound(value: value, isInclusive: isInclusive))
        case (.integer, .real(let number)):
            return integerBound(number, isLower: isLower, isInclusive: isInclusive)
        }
    }

    /// A fractional bound on an integer column: the nearest integer inside the range.
    private static func integerBound(_ number: Double, isLower: Bool, isInclusive: Bool) -> Bound {
        guard !number.isNaN else { return .matchesNothing }
        let rounded = number.rounded(isLower ? .up : .down)
        guard let integer = Int64(exactly: rounded) else {
            // Beyond Int64: nothing lies past a bound above the column's values; a bound below them is open.
            return (rounded > 0) == isLower ? .matchesNothing : .open
        }
        let keepsInclusion = rounded == number ? isInclusive : true
        return .bound(SoupIndexRange.Bound(value: .integer(integer), isInclusive: keepsInclusion))
    }

    /// Text that SQLite's numeric affinity turns into a number: an integer or a real literal,
    /// with surrounding spaces.
    static func number(_ text: String) -> SmartSQLValue? {
        var trimmed = text[...]
        while let first = trimmed.first, first.isWhitespace { trimmed.removeFirst() }
        while let last = trimmed.last, last.isWhitespace { trimmed.removeLast() }
        guard !trimmed.isEmpty,
            trimmed.allSatisfy({ $0.isASCII && ($0.isNumber || "+-.eE".contains($0)) }),
            trimmed.contains(where: \.isNumber)
        else { return nil }
        if let integer = Int64(trimmed) { return .integer(integer) }
        return Double(trimmed).map(SmartSQLValue.real)
    }
}
