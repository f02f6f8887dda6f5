/// Dates and date-times as Salesforce's REST API writes them, from seconds since 1970 (UTC).
///
/// Computed from the proleptic Gregorian calendar directly, so the generated records depend on
/// no locale, time zone or Foundation formatter.
enum SalesforceTimestamp {
    /// `"2024-03-01"`.
    static func date(_ seconds: Int64) -> String {
        let (year, month, day) = civil(days: floorDivide(seconds, 86_400))
        return "\(year)-\(twoDigits(month))-\(twoDigits(day))"
    }

    /// `"2024-03-01T12:34:56.000+0000"`.
    static func dateTime(_ seconds: Int64) -> String {
        let secondOfDay = seconds - floorDivide(seconds, 86_400) * 86_400
        let time =
            "\(twoDigits(secondOfDay / 3600)):\(twoDigits(secondOfDay / 60 % 60)):\(twoDigits(secondOfDay % 60))"
        return "\(date(seconds))T\(time).000+0000"
    }

    /// The year, month and day of `days` since 1970-01-01, by the days-to-civil algorithm
    /// (https://howardhinnant.github.io/date_algorithms.html#civil_from_days).
    private static func civil(days: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let shifted = days + 719_468
        let era = floorDivide(shifted, 146_097)
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        return (year, month, day)
    }

    private static func floorDivide(_ value: Int64, _ divisor: Int64) -> Int64 {
        value >= 0 ? value / divisor : (value - divisor + 1) / divisor
    }

    private static func twoDigits(_ value: Int64) -> String {
        value < 10 ? "0\(value)" : "\(value)"
    }
}
