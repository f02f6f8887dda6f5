public import LosslessJSON

/// A source of records for a sync down: Mobile SDK's `SyncDownTarget` in Swift async form.
///
/// The engine drives a target the way Mobile SDK does: ``startFetch(_:maxTimeStamp:)`` once,
/// then ``totalSize`` is read, then ``continueFetch(_:)`` until it returns `nil`. Each returned
/// array becomes one `sync.down.page` journal entry. Targets are values; the engine keeps the
/// one it runs in a variable, so paging state (a `nextRecordsUrl`, a page number) lives in the
/// target's own stored properties.
///
/// ```swift
/// struct NumbersTarget: SyncDownTarget {
///     var idFieldName: String { "Id" }
///     var modificationDateFieldName: String { "LastModifiedDate" }
///     var isSortedByModificationDate: Bool { true }
///     private(set) var totalSize: Int64 = -1
///     private var pages: [[JSONValue]] = …
///     mutating func startFetch(_ context: SyncDownContext, maxTimeStamp: Int64) async throws -> [JSONValue] {
///         totalSize = Int64(pages.joined().count)
///         return pages.removeFirst()
///     }
///     mutating func continueFetch(_ context: SyncDownContext) async throws -> [JSONValue]? {
///         pages.isEmpty ? nil : pages.removeFirst()
///     }
///     func remoteIds(_ context: SyncDownContext, localIds: [String]) async throws -> Set<String> { … }
/// }
/// ```
///
/// Register custom targets by name in a ``SyncDownTargetRegistry`` so that target JSON (and
/// `usersyncs.json`) can name them.
public protocol SyncDownTarget: Sendable {
    /// The record field holding the server id; local records are matched by it.
    var idFieldName: String { get }
    /// The record field holding the last modification time, read for the watermark.
    var modificationDateFieldName: String { get }
    /// Whether records arrive in modification-date order, so the watermark may advance page by
    /// page and a stopped sync resumes where it stopped; otherwise it advances only at DONE.
    var isSortedByModificationDate: Bool { get }
    /// The number of records the current run expects, known after ``startFetch(_:maxTimeStamp:)``;
    /// `-1` when unknown.
    var totalSize: Int64 { get }
    /// The modification dates the page last fetched was asked for, journaled with the page so
    /// `journal-replay log` shows what each request covered; `nil` when the target does not say
    /// (the default).
    var reSyncWindow: ReSyncWindow? { get }
    /// Where the records of the page last returned go; `nil` (the default) for the sync's soup
    /// under ``idFieldName``. Read by the engine after each fetch.
    var pageDestination: SyncDownPageDestination? { get }
    /// The server's clock when the run read the org (the `Date` of its first answer), epoch
    /// milliseconds; `-1` when unknown. After a DONE run the engine records from it which
    /// seconds are settled (``SyncState/settledThrough``), so the next reSync need not ask
    /// for them again (decision 0325).
    var serverReadTime: Int64 { get }

    /// Fetches the first page.
    ///
    /// A record modified in the watermark's own second, or saved by a transaction that started
    /// before it, may still arrive after the watermark was taken. To fetch those too, ask for
    /// `descriptor.reSyncWindow(maxTimeStamp:settledThrough:)` (modified at or after the start of the
    /// watermark's second, minus the descriptor's overlap) rather than "after `maxTimeStamp`", and
    /// return it from ``reSyncWindow``: the soup fold leaves alone every record fetched again
    /// with the date the soup already holds, so the overlap costs requests, never local edits.
    ///
    /// - Parameters:
    ///   - context: the sync, its soup, the REST client.
    ///   - maxTimeStamp: the sync's watermark, epoch milliseconds: records modified after it
    ///     have not been fetched yet. Values ≤ 0 mean "everything". A STOPPED sync resumes with
    ///     the watermark − 1 ms, as in Mobile SDK, since a page boundary may have split records
    ///     sharing the last time.
    /// - Returns: the first page's records as the server sent them (possibly empty).
    mutating func startFetch(_ context: SyncDownContext, maxTimeStamp: Int64) async throws -> [JSONValue]

    /// Fetches the next page.
    ///
    /// - Returns: the next page's records, or `nil` when there are no more.
    mutating func continueFetch(_ context: SyncDownContext) async throws -> [JSONValue]?

    /// The ids of every record the target would fetch now, ignoring the watermark: what ghost
    /// cleaning keeps.
    ///
    /// - Parameters:
    ///   - context: the sync being cleaned, the store's soups and the REST client.
    ///   - localIds: the ids of the sync's clean local records, for targets that can only check
    ///     given ids (MRU, Refresh).
    func remoteIds(_ context: SyncDownContext, localIds: [String]) async throws -> Set<String>

    /// For a target that writes more than the sync's soup: the ids it would fetch now into each
    /// soup, the parents' (or first) soup first. Ghost cleaning then cleans every soup listed
    /// instead of calling ``remoteIds(_:localIds:)``. `nil`, the default, for one soup.
    func remoteIdsBySoup(_ context: SyncDownContext) async throws -> [SoupRemoteIds]?

    /// The records of a fetched page as they are to be saved (Mobile SDK's
    /// `cleanAndSaveRecordsToLocalStore` override point): change fields, add computed ones, or
    /// leave records out (Mobile SDK's `getIdsToSkip`), so they are not saved. Called once per
    /// page after the page's watermark is read from the records as fetched, and before the page
    /// is journaled: the journal holds what this returns, so a replay saves the same without
    /// calling the target. The default returns `records` unchanged.
    ///
    /// The merge mode still applies to what is returned: under LEAVE_IF_CHANGED a record whose
    /// local copy is dirty when the page is folded is left alone. Progress counts the records
    /// fetched, as Mobile SDK's does; returning more records than were fetched ends the run
    /// FAILED.
    func recordsToSave(_ records: [JSONValue], _ context: SyncDownContext) async throws -> [JSONValue]
}

extension SyncDownTarget {
    /// The sync's soup, under ``idFieldName``.
    public var pageDestination: SyncDownPageDestination? { nil }

    /// `nil`: the target writes only the sync's soup.
    public func remoteIdsBySoup(_ context: SyncDownContext) async throws -> [SoupRemoteIds]? { nil }

    /// `nil`: the target does not say which dates it asked for.
    public var reSyncWindow: ReSyncWindow? { nil }

    /// Unknown: `-1`.
    public var serverReadTime: Int64 { -1 }

    /// The records as fetched.
    public func recordsToSave(_ records: [JSONValue], _ context: SyncDownContext) async throws -> [JSONValue] {
        records
    }
}
