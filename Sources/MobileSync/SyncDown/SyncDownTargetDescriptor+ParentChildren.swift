extension SyncDownTargetDescriptor {
    /// The queries a parent/children sync down sends, in order, for a run from `maxTimeStamp`.
    ///
    /// A first run (watermark ≤ 0) sends Mobile SDK's one query:
    /// `select <parent fields>, (select <child fields> from <Plural>) from <Parent>[ where (<filter>)] order by <parent date>`,
    /// where each field list gets its id and date fields when it lacks them.
    ///
    /// A reSync sends two. The first is Mobile SDK's: parents changed since the watermark, each
    /// with its children changed since then. Mobile SDK stops there, so a child changed under
    /// a parent that did not change is never fetched again; the second query asks for exactly
    /// those: `… where <parent id> in (select <parent id field> from <Child> where <child date> >= D) …`
    /// (a semi-join cannot be joined to the first query by `or` in SOQL). Every date predicate
    /// is the window's, ``reSyncWindow(maxTimeStamp:settledThrough:)``, through
    /// ``SOQLQuery/addFilterForReSync(_:modificationDateFieldName:window:)``, the SOQL target's:
    /// both targets ask from the start of the watermark's second minus the overlap (decision 0321).
    ///
    /// The filter is put in parentheses, so a filter with `or` stays one condition beside the
    /// watermark's predicate (Mobile SDK adds none).
    ///
    /// - Parameters:
    ///   - maxTimeStamp: the sync's watermark, epoch milliseconds.
    ///   - settledThrough: the sync's ``SyncState/settledThrough``, or `-1`: a settled second
    ///     is not asked again (decision 0325).
    /// - Returns: no queries when this is not a parent/children target.
    /// - Throws: ``SyncError/Code/malformedQuery`` when the filter cannot be tokenized.
    public func parentChildrenQueries(maxTimeStamp: Int64, settledThrough: Int64 = -1) throws(SyncError) -> [String] {
        guard case .parentChildren(let relationship, let parentFieldlist, let childrenFieldlist, let filter) = kind
        else { return [] }
        let window = reSyncWindow(maxTimeStamp: maxTimeStamp, settledThrough: settledThrough)
        let parent = relationship.parent
        let children = relationship.children
        let childFields = Self.withIdAndDate(
            childrenFieldlist, children.idFieldName, children.modificationDateFieldName)
        let subquery = try SOQLQuery.addFilterForReSync(
            try SOQLBuilder(fields: childFields, from: children.sobjectTypePlural).build(),
            modificationDateFieldName: children.modificationDateFieldName, window: window)
        let parentFields = Self.withIdAndDate(parentFieldlist, parent.idFieldName, parent.modificationDateFieldName)
        var builder = SOQLBuilder(fields: parentFields + ["(\(subquery))"], from: parent.sobjectType)
        builder.where = Self.parenthesized(filter)
        builder.orderBy = parent.modificationDateFieldName
        let changedParents = try SOQLQuery.addFilterForReSync(
            try builder.build(), modificationDateFieldName: parent.modificationDateFieldName, window: window)
        guard window.isIncremental else { return [changedParents] }
        let changedChildren = try SOQLQuery.addFilterForReSync(
            try SOQLBuilder(fields: [children.parentIdFieldName], from: children.sobjectType).build(),
            modificationDateFieldName: children.modificationDateFieldName, window: window)
        let semiJoin = "\(parent.idFieldName) in (\(changedChildren))"
        builder.where = [semiJoin, Self.parenthesized(filter)].compactMap { $0 }.joined(separator: " and ")
        return [changedParents, try builder.build()]
    }

    /// The queries ghost cleaning of a parent/children target runs, without watermark and order:
    /// `select <parent id> from <Parent>[ where (<filter>)]` for the parents, and
    /// `select <parent id>, (select <child id> from <Plural>) from <Parent>[ where (<filter>)]`
    /// for the children.
    ///
    /// - Returns: `nil` when this is not a parent/children target.
    public func parentChildrenRemoteIdsQueries() throws(SyncError) -> (parents: String, children: String)? {
        guard case .parentChildren(let relationship, _, _, let filter) = kind else { return nil }
        let parent = relationship.parent
        let children = relationship.children
        var parents = SOQLBuilder(fields: [parent.idFieldName], from: parent.sobjectType)
        parents.where = Self.parenthesized(filter)
        let subquery = try SOQLBuilder(fields: [children.idFieldName], from: children.sobjectTypePlural).build()
        var nested = SOQLBuilder(fields: [parent.idFieldName, "(\(subquery))"], from: parent.sobjectType)
        nested.where = Self.parenthesized(filter)
        return (try parents.build(), try nested.build())
    }

    /// `fields`, then `id` and `date` when missing, as Mobile SDK orders them.
    static func withIdAndDate(_ fields: [String], _ id: String, _ date: String) -> [String] {
        var all = fields
        for field in [id, date] where !all.contains(field) { all.append(field) }
        return all
    }

    private static func parenthesized(_ filter: String) -> String? {
        let trimmed = SOQLQuery.trimmed(filter)
        return trimmed.isEmpty ? nil : "(\(trimmed))"
    }
}
