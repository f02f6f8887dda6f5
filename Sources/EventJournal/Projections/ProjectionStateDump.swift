import Foundation
import LMDBStore
import LosslessJSON

/// The generic description of a projection database: keys as text (or hex), values as JSON
/// when they are JSON, text when they are UTF-8, base64 otherwise.
enum ProjectionStateDump {
    /// The most keys described per database; a larger database is marked truncated.
    static let keyCountMax = 10_000

    static func describe(_ database: Database, in transaction: Transaction) throws -> JSONValue {
        var entries: [String: JSONValue] = [:]
        var truncated = false
        try transaction.withCursor(database) { cursor in
            try cursor.forEach { key, value in
                guard entries.count < keyCountMax else {
                    truncated = true
                    return false
                }
                entries[String(validating: key, as: UTF8.self) ?? key.hexString] = describeValue(value)
                return true
            }
        }
        if truncated { entries["…"] = .string("truncated after \(keyCountMax) keys") }
        return .object(entries)
    }

    private static func describeValue(_ value: [UInt8]) -> JSONValue {
        if let json = try? JSONValue(parsing: value), json.object != nil || json.array != nil { return json }
        if let text = String(validating: value, as: UTF8.self),
            !text.unicodeScalars.contains(where: { $0.value < 0x20 })
        {
            return .string(text)
        }
        return .string("base64:" + Data(value).base64EncodedString())
    }
}
