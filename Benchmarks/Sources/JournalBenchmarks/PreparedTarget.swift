import LosslessJSON
import MobileSync

/// Serves pages generated before the run.
struct PreparedTarget: SyncDownTarget {
    var pages: [[JSONValue]]
    var idFieldName: String { "Id" }
    var modificationDateFieldName: String { "LastModifiedDate" }
    var isSortedByModificationDate: Bool { true }
    private(set) var totalSize: Int64 = -1

    init(pages: [[JSONValue]]) {
        self.pages = pages
    }

    mutating func startFetch(_ context: SyncDownContext, maxTimeStamp: Int64) async throws -> [JSONValue] {
        totalSize = Int64(pages.reduce(0) { $0 + $1.count })
        return pages.isEmpty ? [] : pages.removeFirst()
    }

    mutating func continueFetch(_ context: SyncDownContext) async throws -> [JSONValue]? {
        pages.isEmpty ? nil : pages.removeFirst()
    }

    func remoteIds(_ context: SyncDownContext, localIds: [String]) async throws -> Set<String> {
        Set(pages.joined().compactMap { $0["Id"]?.string })
    }
}
