import SalesforceAPI

/// Which of a list of local ids still exist on the server, for ghost cleaning of targets that
/// cannot list their remote ids (MRU, Refresh).
enum ExistingIds {
    static func check(
        _ localIds: [String], descriptor: SyncDownTargetDescriptor, client: SalesforceClient
    ) async throws -> Set<String> {
        var existing = Set<String>()
        // One query names at most `refreshIdsPerQueryMax` ids, which keeps its URL short.
        let sliceSize = SyncDownTargetDescriptor.refreshIdsPerQueryMax
        for start in stride(from: 0, to: localIds.count, by: sliceSize) {
            let slice = Array(localIds[start..<min(start + sliceSize, localIds.count)])
            guard let query = descriptor.existingIdsQuery(localIds: slice) else { continue }
            existing.formUnion(
                try await SOQLSyncDownTarget.allIds(of: query, idFieldName: descriptor.idFieldName, client: client))
        }
        return existing
    }
}
