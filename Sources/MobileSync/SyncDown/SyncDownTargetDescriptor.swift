public import LosslessJSON

/// Where a sync down fetches its records, as a value: the Mobile SDK target JSON, parsed.
///
/// The engine turns a descriptor into a running target; the descriptor itself is what a
/// `SyncState` persists and what `usersyncs.json` names.
///
/// ```swift
/// let target = try SyncDownTargetDescriptor(.soql(query: "SELECT Name FROM Account"))
/// target.json["query"]  // "select Id,LastModifiedDate,Name from Account order by LastModifiedDate"
/// ```
public struct SyncDownTargetDescriptor: Hashable, Sendable {
    /// Which built-in target, with its own settings.
    public var kind: Kind
    /// The record field holding the server id, `Id` unless the JSON says otherwise.
    public var idFieldName: String
    /// The record field holding the last modification time, `LastModifiedDate` unless the JSON
    /// says otherwise.
    public var modificationDateFieldName: String
    /// How many seconds before the watermark's second a reSync starts asking (JSON key
    /// `reSyncOverlapSeconds`, default 0, written only when not 0): see ``ReSyncWindow``. Read by
    /// the targets that reSync from the watermark (SOQL, Refresh, parent/children, briefcase, and
    /// custom targets that use ``reSyncWindow(maxTimeStamp:settledThrough:)``).
    ///
    /// With 0 a reSync asks from the start of the watermark's second, which catches every change
    /// committed in that second or later. Widen it when records can be committed with a date
    /// before the newest one already fetched: Salesforce stamps a record with the start of its
    /// transaction, so a save that runs longer than a second (Apex triggers and flows, Bulk API
    /// batches, data loads) can commit after a sync that already saw later dates. Set it to the
    /// longest such transaction the org runs, in seconds; the cost is re-fetching the records
    /// modified in those seconds on every reSync (they are compared, not rewritten).
    public var reSyncOverlapSeconds: Int
    /// Members of the target JSON this type does not interpret (such as Android's `androidImpl`,
    /// or a custom target's own settings), kept so a round trip loses nothing.
    public var otherFields: [String: JSONValue]

    /// The built-in sync-down targets.
    public enum Kind: Hashable, Sendable {
        /// A SOQL query, paged through `nextRecordsUrl`. `query` is stored normalized.
        case soql(query: String, maxBatchSize: Int = SyncDownTargetDescriptor.soqlBatchSizeDefault)
        /// A SOSL search, one page.
        case sosl(query: String)
        /// The most recently used records of a type, one page.
        case mru(sobjectType: String, fieldlist: [String])
        /// Re-fetches the records already in a soup, `countIdsPerSoql` ids per query.
        case refresh(
            sobjectType: String, fieldlist: [String], soupName: String,
            countIdsPerSoql: Int = SyncDownTargetDescriptor.refreshIdsPerQueryMax)
        /// Parents with their children, one query with a child sub-query per page: parents go to
        /// the parent soup, children to the children soup with their parent's id.
        case parentChildren(
            ParentChildrenRelationship, parentFieldlist: [String], childrenFieldlist: [String],
            parentSoqlFilter: String)
        /// The records a briefcase primes: ids from `connect/briefcase/priming-records`, then the
        /// records of each object type in its own soup.
        case briefcase(
            infos: [BriefcaseObjectInfo], countIdsPerRetrieve: Int = SyncDownTargetDescriptor.briefcaseIdsPerRetrieveMax
        )
        /// The describe result of one sObject type, stored as one record whose id is the type.
        case metadata(sobjectType: String)
        /// The UI API record layout of one sObject type, stored as one record.
        case layout(sobjectType: String, formFactor: String?, layoutType: String?, mode: String?, recordTypeId: String?)
        /// An app-defined target, found in the target registry under `registryKey`.
        case custom(registryKey: String)
    }

    /// The default `batchSize` of a SOQL target: the server's own default page size.
    public static let soqlBatchSizeDefault = 2000
    /// The smallest page size the REST API accepts in `Sforce-Query-Options`.
    public static let soqlBatchSizeMin = 200
    /// The largest page size the REST API accepts in `Sforce-Query-Options`.
    public static let soqlBatchSizeMax = 2000
    /// The most ids one Refresh query names, and its default: keeps the query text under the
    /// REST API's URL length limit.
    public static let refreshIdsPerQueryMax = 500
    /// The most ids one briefcase retrieve names, and its default: the REST API's limit for
    /// `POST composite/sobjects/<type>`.
    public static let briefcaseIdsPerRetrieveMax = 2000
    /// The default id field.
    public static let idFieldNameDefault = "Id"
    /// The default modification date field.
    public static let modificationDateFieldNameDefault = "LastModifiedDate"
    /// The widest reSync overlap: a day, far longer than any Salesforce transaction (synchronous
    /// requests time out after 10 minutes), short enough that a typo cannot make every reSync a
    /// full sync in disguise.
    public static let reSyncOverlapSecondsMax = 86_400

    /// Creates a descriptor, normalizing a SOQL query so it selects the id and modification
    /// date fields and is ordered.
    ///
    /// A parent/children target's id and date fields are its parent's, whatever is passed.
    ///
    /// - Throws: ``SyncError/Code/malformedQuery`` for a SOQL query that cannot be normalized;
    ///   ``SyncError/Code/malformedTarget`` for a name that cannot go into a query or a URL, an
    ///   overlap outside 0…``reSyncOverlapSecondsMax``, or an overlap on a target that fetches
    ///   everything every run (SOSL, MRU, metadata, layout).
    public init(
        _ kind: Kind, idFieldName: String = Self.idFieldNameDefault,
        modificationDateFieldName: String = Self.modificationDateFieldNameDefault,
        reSyncOverlapSeconds: Int = 0, otherFields: [String: JSONValue] = [:]
    ) throws(SyncError) {
        guard (0...Self.reSyncOverlapSecondsMax).contains(reSyncOverlapSeconds) else {
            throw SyncError(
                .malformedTarget,
                "Sync down target key \"reSyncOverlapSeconds\" must be a whole number of seconds from 0 to "
                    + "\(Self.reSyncOverlapSecondsMax), not \(reSyncOverlapSeconds).")
        }
        switch kind {
        case .sosl, .mru, .metadata, .layout:
            guard reSyncOverlapSeconds == 0 else {
                throw SyncError(
                    .malformedTarget,
                    "SOSL, MRU, metadata and layout targets fetch everything each run: they take no reSync overlap.")
            }
        case .soql, .refresh, .parentChildren, .briefcase, .custom:
            break
        }
        self.idFieldName = idFieldName
        self.modificationDateFieldName = modificationDateFieldName
        self.reSyncOverlapSeconds = reSyncOverlapSeconds
        self.otherFields = otherFields
        try Self.checkNames(of: kind)
        switch kind {
        case .soql(let query, let maxBatchSize):
            let normalized = try SOQLQuery.normalizedForSyncDown(
                query, idFieldName: idFieldName, modificationDateFieldName: modificationDateFieldName)
            self.kind = .soql(query: normalized, maxBatchSize: maxBatchSize)
        case .refresh(let type, let fieldlist, let soupName, let count):
            self.kind = .refresh(
                sobjectType: type, fieldlist: fieldlist, soupName: soupName,
                countIdsPerSoql: Self.clampedIdsPerQuery(count))
        case .parentChildren(let relationship, _, _, _):
            self.kind = kind
            self.idFieldName = relationship.parent.idFieldName
            self.modificationDateFieldName = relationship.parent.modificationDateFieldName
        case .briefcase(let infos, let count):
            let clamped = count > 0 ? min(count, Self.briefcaseIdsPerRetrieveMax) : Self.briefcaseIdsPerRetrieveMax
            self.kind = .briefcase(infos: infos, countIdsPerRetrieve: clamped)
        default:
            self.kind = kind
        }
    }

    /// Whether pages arrive in modification-date order, so the watermark may advance page by
    /// page: true for a SOQL query ordered exactly by the modification date field.
    ///
    /// A custom target answers for itself at run time; its descriptor says `false`.
    public var isSortedByModificationDate: Bool {
        guard case .soql(let query, _) = kind, let parsed = try? SOQLQuery(parsing: query) else { return false }
        return parsed.isOrderingBy(modificationDateFieldName)
    }

    /// The modification dates a run asks for when the sync's watermark is `maxTimeStamp`: from
    /// the start of its second, minus ``reSyncOverlapSeconds``, inclusive; or from just after
    /// `settledThrough` when that is later (decision 0325).
    ///
    /// The built-in targets use it; a custom target gets the same guarantee by asking the server
    /// for `window.predicate(modificationDateFieldName:)` instead of "after `maxTimeStamp`".
    /// - Parameters:
    ///   - maxTimeStamp: the sync's watermark, epoch milliseconds.
    ///   - settledThrough: the sync's ``SyncState/settledThrough`` (``SyncDownContext/settledThrough``),
    ///     or `-1` when no second is known to be settled.
    public func reSyncWindow(maxTimeStamp: Int64, settledThrough: Int64 = -1) -> ReSyncWindow {
        ReSyncWindow(maxTimeStamp: maxTimeStamp, overlapSeconds: reSyncOverlapSeconds, settledThrough: settledThrough)
    }

    /// The `Sforce-Query-Options` header value for a SOQL target, such as `batchSize=500`, or
    /// `nil` when the server default applies (the header is only sent when the size is not 2000).
    ///
    /// The size is clamped to ``soqlBatchSizeMin``…``soqlBatchSizeMax`` first.
    public static func queryOptionsHeaderValue(maxBatchSize: Int) -> String? {
        let size = min(max(maxBatchSize, soqlBatchSizeMin), soqlBatchSizeMax)
        return size == soqlBatchSizeDefault ? nil : "batchSize=\(size)"
    }

    static func clampedIdsPerQuery(_ count: Int) -> Int {
        count > 0 ? min(count, refreshIdsPerQueryMax) : refreshIdsPerQueryMax
    }
}
