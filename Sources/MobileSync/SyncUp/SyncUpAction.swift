public import LosslessJSON

/// What a sync up does with one soup record, read from its local flags as Mobile Sync does.
///
/// A record both created and deleted locally never reached the server, so it needs no call:
/// ``requiresServerCall(_:)`` is `false` and the record is simply removed.
public enum SyncUpAction: Hashable, Sendable {
    /// `__locally_created__`: create it (or upsert it by its external id).
    case create
    /// `__locally_updated__`: send the update field list.
    case update
    /// `__locally_deleted__`: delete it on the server, then locally.
    case delete
    /// Not dirty, or dirty without an action flag: nothing to send.
    case none

    /// Reads the action from a record's flags: delete wins over create, create over update,
    /// and a missing flag means `false`.
    public init(record: JSONValue) {
        if Self.flag(record, "__locally_deleted__") {
            self = .delete
        } else if Self.flag(record, "__locally_created__") {
            self = .create
        } else if Self.flag(record, "__locally_updated__") {
            self = .update
        } else {
            self = .none
        }
    }

    /// Whether `record` was created locally and so has no server copy yet.
    public static func isLocallyCreated(_ record: JSONValue) -> Bool {
        flag(record, "__locally_created__")
    }

    /// Whether the record's action needs a request: not for ``none``, and not for a delete of a
    /// record that was created locally (the server never saw it).
    public static func requiresServerCall(_ record: JSONValue) -> Bool {
        switch SyncUpAction(record: record) {
        case .none: false
        case .delete: !isLocallyCreated(record)
        case .create, .update: true
        }
    }

    // Mobile Sync writes the flags as booleans; a string index shows them as "true".
    private static func flag(_ record: JSONValue, _ name: String) -> Bool {
        switch record[name] {
        case .bool(true), .string("true"): true
        default: false
        }
    }
}
