public import LosslessJSON

/// The `__local__` family of record fields, set exactly as Mobile Sync reads them, and the
/// one definition of a dirty record for every module (the soups' dirty set, sync up, ghost
/// cleaning).
///
/// Mobile Sync treats a record as dirty when `__local__` is `true` and reads the three action
/// flags with "missing means false"; it writes them all as JSON booleans.
public enum LocalFlags {
    /// `__local__`: the record has local changes not yet synced up.
    public static let local = "__local__"
    /// `__locally_created__`: the record was created on the device.
    public static let locallyCreated = "__locally_created__"
    /// `__locally_updated__`: the record was changed on the device.
    public static let locallyUpdated = "__locally_updated__"
    /// `__locally_deleted__`: the record was deleted on the device, awaiting sync up.
    public static let locallyDeleted = "__locally_deleted__"
    /// `__sync_id__`: the sync down that last wrote the record.
    public static let syncId = "__sync_id__"
    /// `__last_error__`: the error of the record's last failed sync up, or null.
    public static let lastError = "__last_error__"
    /// Local ids are `local_` and a number, the form Mobile Sync's `isLocalId` recognises.
    public static let localIdPrefix = "local_"

    /// Whether the record is dirty: `__local__` is `true` (or the text `true`, which a
    /// string index shows the same way).
    /// - Parameter record: a soup record.
    public static func isDirty(_ record: JSONValue) -> Bool {
        switch record[local] {
        case .bool(true), .string("true"): true
        default: false
        }
    }

    /// Whether `id` is one `createLocally` gave: such a record was never on the server.
    /// - Parameter id: a record's id field.
    public static func isLocalId(_ id: String) -> Bool {
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
