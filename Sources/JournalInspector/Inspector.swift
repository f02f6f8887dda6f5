import EventJournal
import Foundation
import LosslessJSON
import MobileSync
import Soups
import ToolSupport

/// Answers the inspector's requests from a store: the access checks, then one page or one
/// JSON endpoint.
///
/// Every answer reads the store again in a new read transaction, so entries another process
/// appends while the inspector is open show on the next request (LMDB shares committed data
/// across processes). Nothing here writes to the store.
struct Inspector: Sendable {
    /// The store being inspected.
    let store: SyncStore
    /// The store's path as the user named it, echoed as `info` echoes it.
    let storeName: String
    /// The secret every request must carry as `token=`.
    let token: String
    /// The pages and their script and style, read once from the bundle.
    let assets: InspectorAssets

    /// The page names; each is served at `/<name>` and its data at `/api/<name>`.
    static let pageNames: Set<String> = ["timeline", "syncs", "soups", "record", "conflicts", "state", "store"]

    /// Answers `request`: a 403 without the token or from another host, else the page or data.
    func respond(to request: InspectorRequest) -> InspectorResponse {
        do {
            try InspectorAccess(token: token).check(request)
            return try route(request)
        } catch let error as InspectorError {
            return .failure(error)
        } catch let error as SoupError where error.code == .unknownSoup {
            return .failure(InspectorError(.notFound, error.message, cause: error))
        } catch let error as SoupError where error.code != .storage {
            return .failure(InspectorError(.badRequest, error.message, cause: error))
        } catch let error as JournalError where error.code == .belowHorizon {
            return .failure(InspectorError(.badRequest, error.message, cause: error))
        } catch {
            return .failure(InspectorError(.serverFailed, FailureLine.text(for: error), cause: error))
        }
    }

    private func route(_ request: InspectorRequest) throws -> InspectorResponse {
        let path = request.path
        if path == "/" { return assets.page(token: token) }
        if path.hasPrefix("/assets/") { return try assets.file(String(path.dropFirst("/assets/".count))) }
        if !path.hasPrefix("/api/"), Self.pageNames.contains(String(path.dropFirst())) {
            return assets.page(token: token)
        }
        if let soup = Self.soupOfRecordsPath(path) { return .json(try soupRecords(request, soup: soup)) }
        switch path {
        case "/api/log": return .json(bytes: try logQuery(request).jsonArray(in: store.journal))
        case "/api/info": return .json(try StoreSummary.json(of: store.journal, store: storeName))
        case "/api/state" where request["soups"] == "summary": return .json(try stateSummary(request))
        case "/api/state":
            return .json(try StateDescription.json(of: store.journal, asOf: try asOf(request), soup: request["soup"]))
        case "/api/blame": return .json(try history(request).eventsJSON)
        case "/api/timeline": return .json(try timeline(request))
        case "/api/syncs": return .json(try syncs(request))
        case "/api/soups": return .json(try soups(request))
        case "/api/query": return .json(try query(request))
        case "/api/record": return .json(try record(request))
        case "/api/conflicts": return .json(try conflicts(request))
        case "/api/store": return .json(try storePage(request))
        default: throw InspectorError(.notFound, "no page or endpoint at \(path)")
        }
    }

    /// What the time-travel page shows: `/api/state`'s projections, the soups as
    /// ``soups(_:)`` sums them up (a soup's records are paged on the Soups page, never sent whole).
    func stateSummary(_ request: InspectorRequest) throws -> JSONValue {
        let asOf = try asOf(request)
        let soups = try self.soups(request)
        return try store.journal.withState(asOf: asOf ?? UInt64.max) { context, sequence in
            var projections: [String: JSONValue] = [:]
            for projection in store.journal.projections {
                projections[projection.name] =
                    projection is SoupProjection
                    ? soups["soups"] ?? .null
                    : try projection.describeState(in: context, filter: request["soup"].map { ["soup": $0] } ?? [:])
            }
            return ["asOf": number(sequence), "projections": .object(projections)]
        }
    }

    /// The soup named by `/api/soups/NAME/records` (`NAME` percent-encoded), if `path` is one.
    static func soupOfRecordsPath(_ path: String) -> String? {
        let prefix = "/api/soups/"
        let suffix = "/records"
        guard path.hasPrefix(prefix), path.hasSuffix(suffix), path.count > prefix.count + suffix.count else {
            return nil
        }
        let encoded = path.dropFirst(prefix.count).dropLast(suffix.count)
        return String(encoded).removingPercentEncoding
    }

    /// The `log` filters a request gives (`kind`, `soup`, `sync`, `from`, `to`).
    func logQuery(_ request: InspectorRequest) throws -> JournalLog {
        JournalLog(
            kind: request["kind"], soup: request["soup"], sync: request["sync"], from: try request.sequence("from"),
            to: try request.sequence("to"))
    }

    /// The entry a request shows the store as of: `asOf`, at most the last entry.
    ///
    /// - Throws: ``InspectorError/Code/badRequest`` for a sequence past the last entry, as
    ///   `state --as-of` refuses one.
    func asOf(_ request: InspectorRequest) throws -> UInt64? {
        guard let asOf = try request.sequence("asOf") else { return nil }
        let last = try store.journal.lastSequence()
        guard asOf <= last else {
            throw InspectorError(.badRequest, "asOf \(asOf) is past the journal's last entry, \(last)")
        }
        return asOf
    }

    /// The history of the record a request names (`soup`, `id`), as `blame` reads it.
    func history(_ request: InspectorRequest) throws -> RecordHistory {
        let soup = try request.required("soup")
        let id = try request.required("id")
        let history = try RecordHistory(journal: store.journal, soup: soup, id: id)
        guard !history.events.isEmpty else {
            throw InspectorError(
                .notFound, "no entry of soup '\(soup)' touched a record with Id or _soupEntryId '\(id)'")
        }
        return history
    }
}
