package import LosslessJSON

/// The three-way merge of MERGE_FIELDS: a local record, the server copy it was fetched or
/// uploaded as (its base), and a newer server copy, merged field by field (docs/conflicts.md).
///
/// Fields are the top-level members; a nested object or array is one value. Members whose name
/// begins with `_` are the store's and Mobile Sync's bookkeeping (`_soupEntryId`, `__local__`,
/// `__sync_id__`), never a Salesforce field, and are not merged. A field the server copy lacks
/// is one the query did not select: the server did not change it. Per field:
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
            let baseValue: JSONValue? = base?[name]
            let localValue = local[name]
            if base != nil, serverValue == baseValue { continue }
            if localValue == serverValue { continue }
            if base != nil, localValue == baseValue {
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
        for (name, value) in record where !isBookkeeping(name) && base[name] != value {
            changed.insert(name)
        }
        return changed
    }

    /// Whether any field of `server` differs from `base`, bookkeeping aside.
    package static func serverChanged(_ server: [String: JSONValue], from base: [String: JSONValue]?) -> Bool {
        guard let base else { return true }
        return server.contains { name, value in !isBookkeeping(name) && base[name] != value }
    }

    /// Whether a member is bookkeeping rather than a Salesforce field: Salesforce field names
    /// begin with a letter.
    package static func isBookkeeping(_ name: String) -> Bool {
        name.hasPrefix("_")
    }
}
