import Determinism
import Logging
public import LosslessJSON
import SalesforceAPI

/// The briefcase target: the ids the user's briefcases prime
/// (`GET connect/briefcase/priming-records`, paged by `relayToken`), then the records of each
/// object type named in `infos`, `countIdsPerRetrieve` at a time (`POST composite/sobjects/<type>`),
/// each retrieve one page into that type's soup (``SyncDownPageDestination``).
///
/// A reSync asks for the records primed since its window opened (``reSyncWindow``: the start of
/// the watermark's second minus the overlap, decision 0321) by sending `changedAfterTimestamp`
/// one millisecond before it, since the API's bound is exclusive. Records of types the target does not name are not fetched, as in Mobile SDK; ids the
/// retrieve answers with `null` (deleted since they were primed) are dropped. `totalSize` is the
/// server's `recordCountTotal` (Mobile SDK counts the first page only). Pages come in no
/// modification order, so the watermark advances when the run is DONE.
public struct BriefcaseSyncDownTarget: SyncDownTarget {
    /// The object types fetched, with their soups and fields.
    public let infos: [BriefcaseObjectInfo]
    /// The most ids one retrieve names.
    public let countIdsPerRetrieve: Int
    /// The descriptor's reSync overlap, in seconds.
    public let reSyncOverlapSeconds: Int
    /// The window of the current run, known after the first fetch.
    public private(set) var reSyncWindow: ReSyncWindow?
    /// The first info's id field (each page says its own through ``pageDestination``).
    public var idFieldName: String { infos.first?.idFieldName ?? SyncDownTargetDescriptor.idFieldNameDefault }
    /// The first info's modification date field.
    public var modificationDateFieldName: String {
        infos.first?.modificationDateFieldName ?? SyncDownTargetDescriptor.modificationDateFieldNameDefault
    }
    /// `false`: the watermark advances only when the run is DONE.
    public var isSortedByModificationDate: Bool { false }
    /// The primed records of the run, known after the first fetch; `-1` before.
    public private(set) var totalSize: Int64 = -1
    /// The soup and fields of the page last returned.
    public private(set) var pageDestination: SyncDownPageDestination?

    /// Slices of primed ids not fetched yet, and the token of the next priming page.
    private var pendingSlices: [(info: BriefcaseObjectInfo, ids: [String])] = []
    private var relayToken: String?

    /// Makes the target of a `briefcase` descriptor.
    ///
    /// - Throws: ``SyncError/Code/malformedTarget`` for another kind of descriptor.
    public init(_ descriptor: SyncDownTargetDescriptor) throws(SyncError) {
        guard case .briefcase(let infos, let count) = descriptor.kind else {
            throw SyncError(.malformedTarget, "A briefcase target needs a briefcase descriptor.")
        }
        self.infos = infos
        countIdsPerRetrieve = count
        reSyncOverlapSeconds = descriptor.reSyncOverlapSeconds
    }

    /// Reads the first priming page (on a reSync, records changed in the window of
    /// `maxTimeStamp`) and returns the records of its first slice.
    public mutating func startFetch(_ context: SyncDownContext, maxTimeStamp: Int64) async throws -> [JSONValue] {
        let window = ReSyncWindow(maxTimeStamp: maxTimeStamp, overlapSeconds: reSyncOverlapSeconds)
        reSyncWindow = window
        let changedAfter = window.isIncremental ? WallTime(millisecondsSinceEpoch: window.modifiedSince - 1) : nil
        let first = try await context.requireClient().primingRecords(changedAfter: changedAfter)
        totalSize = Int64(first.recordCountTotal ?? first.recordCount)
        enqueue(first, context)
        // A run that primes nothing still journals its first, empty page, into a soup it owns.
        pageDestination = infos.first.map(Self.destination)
        return try await continueFetch(context) ?? []
    }

    /// The records of the next slice, reading the next priming page when the slices run out;
    /// `nil` when every page is read.
    public mutating func continueFetch(_ context: SyncDownContext) async throws -> [JSONValue]? {
        let client = try context.requireClient()
        while pendingSlices.isEmpty {
            guard let token = relayToken else { return nil }
            enqueue(try await client.primingRecords(relayToken: token), context)
        }
        let (info, ids) = pendingSlices.removeFirst()
        pageDestination = Self.destination(info)
        let records = try await client.collectionRetrieve(
            type: info.sobjectType, ids: ids, fields: info.retrievedFields)
        return records.filter { !$0.isNull }
    }

    /// Every primed id now, without a timestamp, by the soup of its type: every info's soup is
    /// listed, so a type the briefcases no longer prime leaves ghosts to clean.
    ///
    /// - Throws: ``SyncError/Code/incompleteRemoteIds`` when the server reports rule errors:
    ///   the ids are then incomplete, and cleaning by them could delete records still primed.
    public func remoteIdsBySoup(_ context: SyncDownContext) async throws -> [SoupRemoteIds]? {
        let client = try context.requireClient()
        var idsByType: [String: Set<String>] = [:]
        var page = try await client.primingRecords()
        while true {
            guard page.ruleErrors.isEmpty else {
                throw SyncError(
                    .incompleteRemoteIds,
                    "The briefcase could not apply \(page.ruleErrors.count) rule(s); ghosts are not cleaned from "
                        + "incomplete ids: \(JSONValue.array(page.ruleErrors).serializedString)")
            }
            for (type, records) in page.recordsByType { idsByType[type, default: []].formUnion(records.map(\.id)) }
            guard let token = page.relayToken else { break }
            page = try await client.primingRecords(relayToken: token)
        }
        return infos.map { info in
            SoupRemoteIds(
                soupName: info.soupName, idFieldName: info.idFieldName,
                remoteIds: idsByType[info.sobjectType] ?? [])
        }
    }

    /// The remote ids of the first info's soup; ghost cleaning uses ``remoteIdsBySoup(_:)``.
    public func remoteIds(_ context: SyncDownContext, localIds: [String]) async throws -> Set<String> {
        try await remoteIdsBySoup(context)?.first?.remoteIds ?? []
    }

    private static func destination(_ info: BriefcaseObjectInfo) -> SyncDownPageDestination {
        SyncDownPageDestination(
            soupName: info.soupName, idFieldName: info.idFieldName,
            modificationDateFieldName: info.modificationDateFieldName)
    }

    /// Queues the slices of a priming page, type by type in the page's order; types without an
    /// info are skipped.
    private mutating func enqueue(_ page: PrimingRecords, _ context: SyncDownContext) {
        relayToken = page.relayToken
        if !page.ruleErrors.isEmpty {
            context.logger.warning(
                "Briefcase rules failed; their records are not primed",
                metadata: ["sync.id": "\(context.syncId)", "briefcase.ruleErrors": "\(page.ruleErrors.count)"])
        }
        for type in page.types {
            guard let info = infos.first(where: { $0.sobjectType == type }) else { continue }
            let ids = (page.recordsByType[type] ?? []).map(\.id)
            for start in stride(from: 0, to: ids.count, by: countIdsPerRetrieve) {
                pendingSlices.append((info, Array(ids[start..<min(start + countIdsPerRetrieve, ids.count)])))
            }
        }
    }
}
