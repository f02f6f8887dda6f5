/// The relative date literals beyond single days: `THIS_WEEK`, `LAST_MONTH`, `NEXT_YEAR` and so
/// on, as half-open ranges of UTC days. Weeks start on Sunday, as in Salesforce's default
/// (en_US) locale.
enum SOQLDateLiteral {
    /// The range in epoch milliseconds for a literal, or `nil` when the word is not one.
    static func range(_ keyword: String, today: Int64) -> (lower: Int64, upper: Int64)? {
        let parts = keyword.split(separator: "_")
        guard parts.count == 2, let unit = Unit(rawValue: String(parts[1])) else { return nil }
        let offset: Int64
        switch parts[0] {
        case "THIS": offset = 0
        case "LAST": offset = -1
        case "NEXT": offset = 1
        default: return nil
        }
        let day = SOQLParser.millisecondsPerDay
        let todayDays = today / day
        let (start, end) = unit.period(containing: todayDays, offset: offset)
        return (start * day, end * day)
    }

    enum Unit: String {
        case week = "WEEK"
        case month = "MONTH"
        case year = "YEAR"

        /// The first day and the day after the last of the period `offset` periods from the one
        /// holding `days` (days since 1970-01-01).
        func period(containing days: Int64, offset: Int64) -> (Int64, Int64) {
            switch self {
            case .week:
                // 1970-01-01 was a Thursday, so Sunday-based weekday = (days + 4) mod 7.
                let weekday = ((days + 4) % 7 + 7) % 7
                let start = days - weekday + 7 * offset
                return (start, start + 7)
            case .month:
                let (year, month, _) = SOQLDateLiteral.civil(days)
                let index = year * 12 + (month - 1) + offset
                let next = index + 1
                return (
                    SOQLDateLiteral.days(year: index / 12, month: index % 12 + 1, day: 1),
                    SOQLDateLiteral.days(year: next / 12, month: next % 12 + 1, day: 1)
                )
            case .year:
                let year = SOQLDateLiteral.civil(days).year + offset
                return (
                    SOQLDateLiteral.days(year: year, month: 1, day: 1),
                    SOQLDateLiteral.days(year: year + 1, month: 1, day: 1)
                )
            }
        }
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
    static func days(year: Int64, month: Int64, day: Int64) -> Int64 {
        let shiftedYear = month <= 2 ? year - 1 : year
        let era = (shiftedYear >= 0 ? shiftedYear : shiftedYear - 399) / 400
        let yearOfEra = shiftedYear - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The date of a day count since 1970-01-01.
    static func civil(_ days: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let shifted = days + 719_468
        let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}
