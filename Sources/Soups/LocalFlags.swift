import LosslessJSON

/// The `__local__` family of record fields, set exactly as Mobile Sync reads them.
///
/// Mobile Sync treats a record as dirty when `__local__` is `true` and reads the three action
/// flags with "missing means false"; it writes them all as JSON booleans.
enum LocalFlags {
    static let local = "__local__"
    static let locallyCreated = "__locally_created__"
    static let locallyUpdated = "__locally_updated__"
    static let locallyDeleted = "__locally_deleted__"
    /// Local ids are `local_` and a number, the form Mobile Sync's `isLocalId` recognises.
    static let localIdPrefix = "local_"

    /// Whether the record is dirty: `__local__` is `true` (or the text `true`, which a
    /// string index shows the same way).
    static func isDirty(_ record: JSONValue) -> Bool {
        switch record[local] {
        case .bool(true), .string("true"): true
        default: false
        }
    }

    static func isLocalId(_ id: String) -> Bool {
        id.hasPrefix(localIdPrefix)
    }

    static func markedCreated(_ fields: [String: JSONValue]) -> [String: JSONValue] {
        var fields = fields
        fields[local] = true
        fields[locallyCreated] = true
        fields[locallyUpdated] = false
        fields[locallyDeleted] = false
        return fields
    }

    static func markedUpdated(_ fields: [String: JSONValue]) -> [String: JSONValue] {
        var fields = fields
        fields[local] = true
        fields[locallyUpdated] = true
        if fields[locallyCreated] == nil { fields[locallyCreated] = false }
        if fields[locallyDeleted] == nil { fields[locallyDeleted] = false }
        return fields
    }

    static func markedDeleted(_ fields: [String: JSONValue]) -> [String: JSONValue] {
        var fields = fields
        fields[local] = true
        fields[locallyDeleted] = true
        if fields[locallyCreated] == nil { fields[locallyCreated] = false }
        if fields[locallyUpdated] == nil { fields[locallyUpdated] = false }
        return fields
    }
}
