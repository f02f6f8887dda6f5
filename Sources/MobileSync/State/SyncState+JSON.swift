public import LosslessJSON

extension SyncState {
    /// Parses a sync state in the Mobile SDK `syncs_soup` JSON shape.
    ///
    /// `_soupEntryId`, `type`, `target` and `soupName` are required; the counters default to
    /// their creation values, and options without `mergeMode` mean OVERWRITE, as in Mobile SDK.
    /// `endTime` is read from `endTime` (Android reads it from `startTime`, a bug not kept).
    ///
    /// - Throws: ``SyncError/Code/malformedState`` naming the bad key, or the target's error.
    public init(json: JSONValue) throws(SyncError) {
        let fields = try JSONFields(json, what: "Sync state", code: .malformedState)
        guard let id = try fields.optionalInteger("_soupEntryId") else {
            throw SyncError(.malformedState, "Sync state has no \"_soupEntryId\".")
        }
        let typeText = try fields.string("type")
        guard let type = SyncType(rawValue: typeText) else {
            throw SyncError(
                .malformedState, "Sync state \(id): \"type\" must be syncDown or syncUp, not \"\(typeText)\".")
        }
        let targetJSON = try fields.value("target")
        let target: Target =
            switch type {
            case .syncDown: .syncDown(try SyncDownTargetDescriptor(json: targetJSON))
            case .syncUp: .syncUp(try SyncUpTargetDescriptor(json: targetJSON))
            }
        self.init(
            id: id, name: try fields.optionalString("name"), target: target,
            options: try Self.options(fields.members["options"]), soupName: try fields.string("soupName"))
        try readCounters(fields)
    }

    /// The Mobile SDK `syncs_soup` JSON, plus `failures` when there are any, a sync up's
    /// `syncUpSummary`, and a sync down's `fetchedCount` and `changedCount` when not 0 and its `settledThrough` when known.
    public var json: JSONValue {
        var members: [String: JSONValue] = [
            "_soupEntryId": .number(JSONNumber(id)), "type": .string(type.rawValue), "target": target.json,
            "options": options.json, "soupName": .string(soupName), "status": .string(status.rawValue),
            "progress": .number(JSONNumber(Int64(progress))), "totalSize": .number(JSONNumber(totalSize)),
            "maxTimeStamp": .number(JSONNumber(maxTimeStamp)), "startTime": .number(JSONNumber(startTime)),
            "endTime": .number(JSONNumber(endTime)), "error": .string(error),
        ]
        if let name { members["name"] = .string(name) }
        if failures.count > 0 { members["failures"] = failures.json }
        if let syncUpSummary { members["syncUpSummary"] = syncUpSummary.json }
        if fetchedCount != 0 { members["fetchedCount"] = .number(JSONNumber(fetchedCount)) }
        if changedCount != 0 { members["changedCount"] = .number(JSONNumber(changedCount)) }
        if settledThrough >= 0 { members["settledThrough"] = .number(JSONNumber(settledThrough)) }
        return .object(members)
    }

    private mutating func readCounters(_ fields: JSONFields) throws(SyncError) {
        let statusText = try fields.optionalString("status") ?? SyncStatus.new.rawValue
        guard let status = SyncStatus(rawValue: statusText) else {
            throw SyncError(.malformedState, "Sync state \(id): unknown \"status\" \"\(statusText)\".")
        }
        self.status = status
        let progress = try fields.optionalInteger("progress") ?? 0
        guard (0...100).contains(progress) else {
            throw SyncError(.malformedState, "Sync state \(id): \"progress\" must be 0…100, not \(progress).")
        }
        self.progress = Int(progress)
        totalSize = try fields.optionalInteger("totalSize") ?? -1
        maxTimeStamp = try fields.optionalInteger("maxTimeStamp") ?? -1
        startTime = try fields.optionalInteger("startTime") ?? 0
        endTime = try fields.optionalInteger("endTime") ?? 0
        error = try fields.optionalString("error") ?? ""
        fetchedCount = try fields.optionalInteger("fetchedCount") ?? 0
        changedCount = try fields.optionalInteger("changedCount") ?? 0
        settledThrough = max(-1, try fields.optionalInteger("settledThrough") ?? -1)
        if let failuresJSON = fields.members["failures"], !failuresJSON.isNull {
            failures = try FailureSummary(json: failuresJSON)
        }
        if let summaryJSON = fields.members["syncUpSummary"], !summaryJSON.isNull {
            syncUpSummary = try SyncUpSummary(json: summaryJSON)
        }
    }

    private static func options(_ json: JSONValue?) throws(SyncError) -> SyncOptions {
        guard let json, !json.isNull else { return SyncOptions() }
        let fields = try JSONFields(json, what: "Sync state options", code: .malformedState)
        if fields.members[MobileSDKKey.mergeMode] == nil || fields.members[MobileSDKKey.mergeMode] == .null {
            return SyncOptions(mergeMode: .overwrite, fieldlist: try fields.optionalStringArray("fieldlist"))
        }
        return try SyncOptions(json: json)
    }
}
