package import LosslessJSON

/// The three-way merge of MERGE_FIELDS: a local record, the server copy it was fetched or
/// uploaded as (its base), and a newer server copy, merged field by field (docs/conflicts.md).
///
/// Fields are the top-level members; a nested object or array is one value. Members whose name
/// begins with `_` are the store's and Mobile Sync's bookkeeping (`_soupEntryId`, `__local__`,
/// `__sync_id__`), never a Salesforce field, and are not merged. A field the server copy lacks
/// is one the query did not select: the server did not change it. The audit fields the server
/// maintains (`LastModifiedDate`, `SystemModstamp`, …) always take the server's value and are
/// never a change of the server's: they also move when the app's own upload lands. Per field:
///
/// | server vs base | local vs base | result |
/// |---|---|---|
/// | same | any | the local value |
/// | changed | same | the server's value |
/// | changed | changed to the server's value | the server's value |
/// | changed | changed to another value | the local value, and a conflict |
///
/// Without a base (a record made dirty before bases were kept), every field whose local and
/// server values differ is a conflict: nothing is taken or dropped on a guess.
package struct FieldMerge {
    /// The local record with the server's changes taken.
    package private(set) var merged: [String: JSONValue]
    /// The new base: the old one with the server copy's fields over it.
    package private(set) var base: [String: JSONValue]
    /// The fields changed on both sides to different values, by name.
    package private(set) var conflicts: [RecordConflict.Field] = []

    /// Merges `server` into `local` from `base`.
    package init(base: [String: JSONValue]?, local: [String: JSONValue], server: [String: JSONValue]) {
        merged = local
        self.base = (base ?? [:]).merging(server) { $1 }
        for (name, serverValue) in server where !Self.isBookkeeping(name) {
            if Self.isServerMaintained(name) {
                merged[name] = serverValue
                continue
            }
            let baseValue: JSONValue? = base?[name]
            let localValue = local[name]
            if base != nil, Self.same(serverValue, baseValue) { continue }
            if Self.same(localValue, serverValue) { continue }
            if base != nil, Self.same(localValue, baseValue) {
                merged[name] = serverValue
            } else {
                conflicts.append(
                    RecordConflict.Field(path: name, base: baseValue, local: localValue, server: serverValue))
            }
        }
        conflicts.sort { $0.path < $1.path }
    }

    /// Whether the merged record still differs from the new base in a field: a change left to
    /// sync up.
    package var hasLocalChanges: Bool {
        Self.changedFields(of: merged, from: base).isEmpty == false
    }

    /// The names of the fields of `record` whose values differ from `base`'s, bookkeeping aside;
    /// a field `record` lacks is not a change (sync up sends only present fields).
    package static func changedFields(of record: [String: JSONValue], from base: [String: JSONValue]) -> Set<String> {
        var changed: Set<String> = []
        for (name, value) in record where !isBookkeeping(name) && !isServerMaintained(name) && !same(base[name], value)
        {
            changed.insert(name)
        }
        return changed
    }

    /// The fields of `server` that differ from `base`, bookkeeping and audit fields aside, by
    /// name.
    package static func serverChangedFields(_ server: [String: JSONValue], from base: [String: JSONValue]?)
        -> [String]
    {
        server.keys.filter { name in
            !isBookkeeping(name) && !isServerMaintained(name) && !same(base?[name], server[name])
        }
        .sorted()
    }

    /// Whether a member is bookkeeping rather than a Salesforce field: Salesforce field names
    /// begin with a letter.
    package static func isBookkeeping(_ name: String) -> Bool {
        name.hasPrefix("_")
    }

    /// Whether two values of a field are the same: an absent field and a null one are (the
    /// REST API returns a field without a value as null; a local record may simply lack it).
    package static func same(_ first: JSONValue?, _ second: JSONValue?) -> Bool {
        (first ?? .null) == (second ?? .null)
    }

    /// Whether a field is one the server maintains on every save, whoever made it.
    package static func isServerMaintained(_ name: String) -> Bool {
        serverMaintainedFields.contains(name)
    }

    /// The audit fields, and `attributes`: the REST API's description of the record (its type
    /// and URL), which the server writes and a local copy may hold in part.
    private static let serverMaintainedFields: Set<String> = [
        "CreatedById", "CreatedDate", "LastModifiedById", "LastModifiedDate", "LastReferencedDate", "LastViewedDate",
        "SystemModstamp", "attributes",
    ]
}
