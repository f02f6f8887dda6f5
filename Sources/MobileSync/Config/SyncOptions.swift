public import LosslessJSON

/// How a sync treats local changes, and which fields a sync up sends.
///
/// Serializes to the Mobile SDK `options` object: `{"mergeMode":"OVERWRITE","fieldlist":[…]}`,
/// with `fieldlist` omitted when `nil`.
public struct SyncOptions: Hashable, Sendable {
    /// What to do with records that changed locally.
    public var mergeMode: MergeMode
    /// The fields a sync up sends when its target names none; `nil` for sync down.
    public var fieldlist: [String]?

    /// Creates options.
    public init(mergeMode: MergeMode = .overwrite, fieldlist: [String]? = nil) {
        self.mergeMode = mergeMode
        self.fieldlist = fieldlist
    }

    /// Parses a Mobile SDK `options` object.
    ///
    /// `mergeMode` is required, as in Mobile SDK's parser.
    ///
    /// - Throws: ``SyncError/Code/malformedOptions`` naming the bad key.
    public init(json: JSONValue) throws(SyncError) {
        let fields = try JSONFields(json, what: "Sync options", code: .malformedOptions)
        let modeText = try fields.string(MobileSDKKey.mergeMode)
        guard let mode = MergeMode(rawValue: modeText) else {
            throw SyncError(
                .malformedOptions,
                "Sync options: \"mergeMode\" must be OVERWRITE, LEAVE_IF_CHANGED or MERGE_FIELDS, not \"\(modeText)\".")
        }
        mergeMode = mode
        fieldlist = try fields.optionalStringArray("fieldlist")
    }

    /// The Mobile SDK `options` object.
    public var json: JSONValue {
        var members: [String: JSONValue] = [MobileSDKKey.mergeMode: .string(mergeMode.rawValue)]
        if let fieldlist { members["fieldlist"] = .array(fieldlist.map(JSONValue.string)) }
        return .object(members)
    }
}
