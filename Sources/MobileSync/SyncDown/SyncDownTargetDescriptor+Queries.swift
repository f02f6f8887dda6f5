public import LosslessJSON

extension SyncDownTargetDescriptor {
    /// The query an MRU target sends for the ids of the recent items:
    /// `select <fieldlist> from <type> where <idField> IN ('a', 'b')`, field list verbatim.
    ///
    /// - Returns: `nil` when this is not an MRU target or `recentIds` is empty.
    public func mruQuery(recentIds: [String]) -> String? {
        guard case .mru(let type, let fieldlist) = kind, !recentIds.isEmpty else { return nil }
        let inList = SOQLQuery.quotedList(recentIds)
        return "select \(fieldlist.joined(separator: ", ")) from \(type) where \(idFieldName) IN (\(inList))"
    }

    /// The soup ids a Refresh target names per query: `ids` in slices of `countIdsPerSoql`.
    ///
    /// - Returns: no slices when this is not a Refresh target.
    public func refreshIdSlices(_ ids: [String]) -> [[String]] {
        guard case .refresh(_, _, _, let count) = kind else { return [] }
        return stride(from: 0, to: ids.count, by: count).map { Array(ids[$0..<min($0 + count, ids.count)]) }
    }

    /// The query a Refresh target sends for one slice of ids:
    /// `select <fieldlist, Id, LastModifiedDate> from <type> where Id IN (…)[ and LastModifiedDate >= D]`.
    ///
    /// The id and modification date fields are appended to the field list when it lacks them.
    /// The date filter is the window's (``ReSyncWindow/predicate(modificationDateFieldName:)``)
    /// and appears only when it is incremental.
    ///
    /// - Returns: `nil` when this is not a Refresh target or `ids` is empty.
    public func refreshQuery(ids: [String], window: ReSyncWindow) -> String? {
        guard case .refresh(let type, let fieldlist, _, _) = kind, !ids.isEmpty else { return nil }
        var fields = fieldlist
        for field in [idFieldName, modificationDateFieldName] where !fields.contains(field) { fields.append(field) }
        var query =
            "select \(fields.joined(separator: ", ")) from \(type) where \(idFieldName) IN (\(SOQLQuery.quotedList(ids)))"
        if let predicate = window.predicate(modificationDateFieldName: modificationDateFieldName) {
            query += " and \(predicate)"
        }
        return query
    }

    /// The window of one Refresh query. On a resync (`syncMaxTimeStamp > 0`) it opens at the
    /// latest modification among the local records of the slice, so only records changed on the
    /// server since the local copy are fetched — from the start of that second, minus the
    /// overlap, as for SOQL (decision 0321). It asks for everything on a first run, or when any
    /// local record of the slice lacks a readable modification date.
    public func refreshWindow(localSlice: [JSONValue], syncMaxTimeStamp: Int64) -> ReSyncWindow {
        guard syncMaxTimeStamp > 0 else { return reSyncWindow(maxTimeStamp: -1) }
        return reSyncWindow(
            maxTimeStamp: SyncDownPage.latestModificationTimeStamp(of: localSlice, fieldName: modificationDateFieldName)
        )
    }

    /// The query that checks which of `localIds` still exist on the server, for ghost cleaning
    /// of MRU and Refresh targets: `select <idField> from <type> where <idField> IN (…)`.
    ///
    /// - Returns: `nil` for other targets or when `localIds` is empty.
    public func existingIdsQuery(localIds: [String]) -> String? {
        let type: String
        switch kind {
        case .mru(let sobjectType, _), .refresh(let sobjectType, _, _, _): type = sobjectType
        default: return nil
        }
        guard !localIds.isEmpty else { return nil }
        return "select \(idFieldName) from \(type) where \(idFieldName) IN (\(SOQLQuery.quotedList(localIds)))"
    }
}
