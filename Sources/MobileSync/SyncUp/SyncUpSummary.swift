public import LosslessJSON

/// What one sync up did, record by record: Mobile Sync's DONE says only that the run ended,
/// which hides per-record failures; this says which records went where.
public struct SyncUpSummary: Hashable, Sendable {
    /// A record the server refused: it stays dirty with the error in `__last_error__`.
    public struct Failure: Hashable, Sendable {
        /// The record's `_soupEntryId`.
        public var entryId: Int64
        /// The record's id field value (a local id for a create).
        public var id: String?
        /// The server's error, as stored in `__last_error__`.
        public var message: String
    }

    /// Records included in a request.
    public var sent = 0
    /// Records created, updated or deleted (on the server, or locally only for a record created
    /// and deleted offline).
    public var succeeded = 0
    /// Records the server refused.
    public var failed: [Failure] = []
    /// `_soupEntryId`s left untouched because LEAVE_IF_CHANGED found a newer server copy.
    public var skippedByLeaveIfChanged: [Int64] = []
    /// `_soupEntryId`s MERGE_FIELDS left dirty and unsent: records with an open conflict, and
    /// records whose server copy changed since their base, which the next MERGE_FIELDS sync down
    /// merges (docs/conflicts.md).
    public var skippedForMerge: [Int64] = []
    /// `_soupEntryId`s of creates that were sent again after a crash lost their answer, with no
    /// external id or marker to check: the server may hold two copies.
    public var possibleDuplicates: [Int64] = []
    /// `_soupEntryId`s of creates whose lost answer was recovered: by their marker field, or by
    /// their external id when they were deleted locally since.
    public var recovered: [Int64] = []

    /// Creates an empty summary.
    public init() {}

    /// Reads a summary written by ``json``.
    ///
    /// - Throws: ``SyncError/Code/malformedState`` when it is not an object of that shape.
    public init(json: JSONValue) throws(SyncError) {
        let fields = try JSONFields(json, what: "Sync up summary", code: .malformedState)
        sent = Int(clamping: try fields.optionalInteger("sent") ?? 0)
        succeeded = Int(clamping: try fields.optionalInteger("succeeded") ?? 0)
        for item in fields.members["failed"]?.array ?? [] {
            let failure = try JSONFields(item, what: "Sync up failure", code: .malformedState)
            failed.append(
                Failure(
                    entryId: try failure.optionalInteger("entryId") ?? 0, id: try failure.optionalString("id"),
                    message: try failure.optionalString("message") ?? ""))
        }
        skippedByLeaveIfChanged = Self.ids(fields, "skippedByLeaveIfChanged")
        skippedForMerge = Self.ids(fields, "skippedForMerge")
        possibleDuplicates = Self.ids(fields, "possibleDuplicates")
        recovered = Self.ids(fields, "recovered")
    }

    private static func ids(_ fields: JSONFields, _ name: String) -> [Int64] {
        (fields.members[name]?.array ?? []).compactMap { $0.number?.int64Value }
    }

    /// The summary as JSON, the `syncUpSummary` member of a sync up's state.
    public var json: JSONValue {
        var members: [String: JSONValue] = [
            "sent": .number(JSONNumber(Int64(sent))), "succeeded": .number(JSONNumber(Int64(succeeded))),
            "failed": .array(
                failed.map { failure in
                    [
                        "entryId": .number(JSONNumber(failure.entryId)),
                        "id": failure.id.map(JSONValue.string) ?? .null,
                        "message": .string(failure.message),
                    ]
                }),
            "skippedByLeaveIfChanged": .array(skippedByLeaveIfChanged.map { .number(JSONNumber($0)) }),
            "possibleDuplicates": .array(possibleDuplicates.map { .number(JSONNumber($0)) }),
            "recovered": .array(recovered.map { .number(JSONNumber($0)) }),
        ]
        // Only MERGE_FIELDS fills it: the summaries of Mobile SDK's modes keep their shape.
        if !skippedForMerge.isEmpty {
            members["skippedForMerge"] = .array(skippedForMerge.map { .number(JSONNumber($0)) })
        }
        return .object(members)
    }
}
