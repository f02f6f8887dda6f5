import Foundation

extension WallTime {
    private static let weekdays = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"]
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// The time as an HTTP `Date` (RFC 9110's IMF-fixdate, always GMT, whole seconds):
    /// `Wed, 01 May 2024 12:30:00 GMT`.
    public var httpDate: String {
        let days = floorDivide(millisecondsSinceEpoch, 86_400_000)
        let secondOfDay = (millisecondsSinceEpoch - days * 86_400_000) / 1000
        let (year, month, day) = Self.civilDate(daysSinceEpoch: days)
        let weekday = Self.weekdays[Int(days - floorDivide(days, 7) * 7)]
        return String(
            format: "%@, %02lld %@ %04lld %02lld:%02lld:%02lld GMT", weekday, day, Self.months[Int(month - 1)], year,
            secondOfDay / 3600, secondOfDay / 60 % 60, secondOfDay % 60)
    }

    /// Parses an HTTP `Date` in IMF-fixdate form (`Wed, 01 May 2024 12:30:00 GMT`), the form
    /// every current server sends; the obsolete RFC 850 and asctime forms are not read.
    ///
    /// - Returns: `nil` when the text is not such a date.
    public init?(httpDate text: String) {
        let parts = text.split(separator: " ")
        guard parts.count == 6, parts[0].count == 4, parts[0].hasSuffix(","), parts[5] == "GMT",
            let day = Int64(parts[1]), parts[1].count == 2, (1...31).contains(day),
            let monthIndex = Self.months.firstIndex(of: String(parts[2])),
            let year = Int64(parts[3]), parts[3].count == 4
        else { return nil }
        let clock = parts[4].split(separator: ":", omittingEmptySubsequences: false)
        guard clock.count == 3, clock.allSatisfy({ $0.count == 2 }),
            let hour = Int64(clock[0]), let minute = Int64(clock[1]), let second = Int64(clock[2]),
            hour < 24, minute < 60, second < 61
        else { return nil }
        let days = Self.daysSinceEpoch(year: year, month: Int64(monthIndex + 1), day: day)
        self.init(millisecondsSinceEpoch: (days * 86_400 + hour * 3600 + minute * 60 + second) * 1000)
    }
}
