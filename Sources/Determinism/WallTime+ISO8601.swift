import Foundation

extension WallTime {
    /// The time in Salesforce's wire format, `2024-05-01T12:30:00.000+0000` (always UTC).
    public var salesforceFormat: String {
        let days = floorDivide(millisecondsSinceEpoch, 86_400_000)
        let millisecondOfDay = millisecondsSinceEpoch - days * 86_400_000
        let (year, month, day) = Self.civilDate(daysSinceEpoch: days)
        let hour = millisecondOfDay / 3_600_000
        let minute = millisecondOfDay / 60_000 % 60
        let second = millisecondOfDay / 1000 % 60
        let millisecond = millisecondOfDay % 1000
        // Digits written by hand: `String(format:)` goes through Foundation's format parser and
        // a dynamic cast per argument, which was a few percent of a sync down's records.
        var text = ""
        text.reserveCapacity(28)
        func field(_ value: Int64, width: Int, then separator: String) {
            Self.append(value, width: width, to: &text)
            text.append(separator)
        }
        field(year, width: 4, then: "-")
        field(month, width: 2, then: "-")
        field(day, width: 2, then: "T")
        field(hour, width: 2, then: ":")
        field(minute, width: 2, then: ":")
        field(second, width: 2, then: ".")
        field(millisecond, width: 3, then: "+0000")
        return text
    }

    /// Appends `value` in decimal, zero-padded to `width` characters as `%0*lld` pads it (a
    /// minus sign counts towards the width).
    private static func append(_ value: Int64, width: Int, to text: inout String) {
        let digits = String(value.magnitude)
        let sign = value < 0 ? 1 : 0
        if sign == 1 { text.append("-") }
        text.append(String(repeating: "0", count: max(0, width - sign - digits.count)))
        text.append(digits)
    }

    /// Parses an ISO 8601 date-time as Salesforce writes and accepts it: `YYYY-MM-DDTHH:MM:SS`,
    /// optional fraction, then `Z`, `+HHMM`, `+HH:MM` or the negative forms.
    ///
    /// - Returns: `nil` when the text is not such a date-time.
    public init?(iso8601 text: String) {
        let bytes = Array(text.utf8)
        guard bytes.count >= 19, bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-"),
            bytes[10] == UInt8(ascii: "T") || bytes[10] == UInt8(ascii: " "),
            bytes[13] == UInt8(ascii: ":"), bytes[16] == UInt8(ascii: ":"),
            let year = Self.number(bytes, 0, 4), let month = Self.number(bytes, 5, 2),
            let day = Self.number(bytes, 8, 2), let hour = Self.number(bytes, 11, 2),
            let minute = Self.number(bytes, 14, 2), let second = Self.number(bytes, 17, 2),
            (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 61
        else { return nil }
        var index = 19
        var millisecond: Int64 = 0
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            var scale: Int64 = 100
            let start = index
            while index < bytes.count, let digit = Self.digit(bytes[index]) {
                millisecond += digit * scale
                scale /= 10
                index += 1
            }
            guard index > start else { return nil }
        }
        var offsetMinutes: Int64 = 0
        if index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: "Z"):
                index += 1
            case UInt8(ascii: "+"), UInt8(ascii: "-"):
                let sign: Int64 = bytes[index] == UInt8(ascii: "-") ? -1 : 1
                index += 1
                guard let hours = Self.number(bytes, index, 2) else { return nil }
                index += 2
                if index < bytes.count, bytes[index] == UInt8(ascii: ":") { index += 1 }
                guard let minutes = Self.number(bytes, index, 2) else { return nil }
                index += 2
                offsetMinutes = sign * (hours * 60 + minutes)
            default:
                return nil
            }
        }
        guard index == bytes.count else { return nil }
        let days = Self.daysSinceEpoch(year: year, month: month, day: day)
        let seconds = days * 86_400 + hour * 3600 + minute * 60 + second - offsetMinutes * 60
        self.init(millisecondsSinceEpoch: seconds * 1000 + millisecond)
    }

    // Howard Hinnant's civil-from-days and days-from-civil algorithms: exact for the
    // proleptic Gregorian calendar without Foundation's calendar machinery or locale.
    static func civilDate(daysSinceEpoch: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let z = daysSinceEpoch + 719_468
        let era = floorDivide(z, 146_097)
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthPrime = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthPrime + 2) / 5 + 1
        let month = monthPrime < 10 ? monthPrime + 3 : monthPrime - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    static func daysSinceEpoch(year: Int64, month: Int64, day: Int64) -> Int64 {
        let adjustedYear = month <= 2 ? year - 1 : year
        let era = floorDivide(adjustedYear, 400)
        let yearOfEra = adjustedYear - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    private static func digit(_ byte: UInt8) -> Int64? {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) ? Int64(byte - UInt8(ascii: "0")) : nil
    }

    private static func number(_ bytes: [UInt8], _ start: Int, _ count: Int) -> Int64? {
        guard start + count <= bytes.count else { return nil }
        var value: Int64 = 0
        for index in start..<start + count {
            guard let digit = digit(bytes[index]) else { return nil }
            value = value * 10 + digit
        }
        return value
    }
}

func floorDivide(_ lhs: Int64, _ rhs: Int64) -> Int64 {
    let quotient = lhs / rhs
    return (lhs % rhs != 0 && (lhs < 0) != (rhs < 0)) ? quotient - 1 : quotient
}
