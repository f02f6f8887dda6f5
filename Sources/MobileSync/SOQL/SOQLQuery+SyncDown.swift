extension SOQLQuery {
    /// The query a SOQL sync-down target stores: it selects the id and modification date
    /// fields and has an `order by`, so every record carries what the watermark and the merge
    /// need.
    ///
    /// A query that already qualifies comes back verbatim; otherwise it is rebuilt with
    /// lowercase keywords and the missing pieces: `SELECT Name FROM Account` becomes
    /// `select Id,LastModifiedDate,Name from Account order by LastModifiedDate`.
    ///
    /// - Throws: ``SyncError/Code/malformedQuery`` when the query cannot be tokenized or rebuilt.
    public static func normalizedForSyncDown(
        _ query: String, idFieldName: String, modificationDateFieldName: String
    ) throws(SyncError) -> String {
        guard !query.isEmpty else { return query }
        var parsed = try SOQLQuery(parsing: query)
        var changed = false
        if !parsed.isSelectingField(modificationDateFieldName) {
            parsed.addSelectFields(modificationDateFieldName)
            changed = true
        }
        if !parsed.isSelectingField(idFieldName) {
            parsed.addSelectFields(idFieldName)
            changed = true
        }
        if !parsed.hasOrderBy {
            parsed.replaceOrderBy(modificationDateFieldName)
            changed = true
        }
        return changed ? try parsed.build() : query
    }

    /// The query of an incremental sync: only records modified inside `window`.
    ///
    /// For an incremental window the predicate `<field> >= <time>` (time in Salesforce format,
    /// UTC) goes in front of any existing top-level `where`, joined by `and` without parentheses
    /// (decision 0302), and the query is rebuilt with lowercase keywords. Mobile SDK asks
    /// `<field> > <watermark>`, which misses a change made in the watermark's own second; the
    /// window starts at that second's beginning, minus its overlap (decision 0321). A window that
    /// asks for everything returns the query unchanged.
    ///
    /// - Throws: ``SyncError/Code/malformedQuery`` when the query cannot be tokenized or rebuilt.
    public static func addFilterForReSync(
        _ query: String, modificationDateFieldName: String, window: ReSyncWindow
    ) throws(SyncError) -> String {
        guard let predicate = window.predicate(modificationDateFieldName: modificationDateFieldName) else {
            return query
        }
        var parsed = try SOQLQuery(parsing: query)
        parsed.addWherePredicates(predicate)
        return try parsed.build()
    }

    /// The query that lists the ids of every record a SOQL sync down would fetch, for ghost
    /// cleaning: the select list replaced by the id field and the `order by` removed.
    ///
    /// - Throws: ``SyncError/Code/malformedQuery`` when the query cannot be tokenized or rebuilt.
    public static func remoteIdsQuery(_ query: String, idFieldName: String) throws(SyncError) -> String {
        var parsed = try SOQLQuery(parsing: query)
        parsed.replaceSelectFields(idFieldName)
        parsed.replaceOrderBy("")
        return try parsed.build()
    }

    /// `'a', 'b'` for a SOQL `IN (…)` list, with `\` and `'` escaped as SOQL requires.
    static func quotedList(_ values: [String]) -> String {
        values.map { value in
            let escaped = value.replacing("\\", with: "\\\\").replacing("'", with: "\\'")
            return "'\(escaped)'"
        }.joined(separator: ", ")
    }
}
