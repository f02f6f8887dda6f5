import BenchmarkSupport
import Determinism
import LosslessJSON
import MobileSync

/// Generates `count` records page by page, to fill large soups without holding them in memory.
struct GeneratedTarget: SyncDownTarget {
    let count: Int
    let shape: RecordShape
    private var next = 0
    private var generator = SplitMix64(seed: 7)
    var idFieldName: String { "Id" }
    var modificationDateFieldName: String { "LastModifiedDate" }
    var isSortedByModificationDate: Bool { true }
    var totalSize: Int64 { Int64(count) }

    init(count: Int, shape: RecordShape = .lorem) {
        self.count = count
        self.shape = shape
    }

    mutating func startFetch(_ context: SyncDownContext, maxTimeStamp: Int64) async throws -> [JSONValue] {
        try await continueFetch(context) ?? []
    }

    mutating func continueFetch(_ context: SyncDownContext) async throws -> [JSONValue]? {
        guard next < count else { return nil }
        let end = min(next + SyncDownBenchmark.pageSize, count)
        defer { next = end }
        return (next..<end).map { SyncDownBenchmark.record($0, shape: shape, using: &generator) }
    }

    func remoteIds(_ context: SyncDownContext, localIds: [String]) async throws -> Set<String> {
        Set(localIds)
    }
}
