import Determinism
import LosslessJSON
import MobileSync
import SyncTesting

/// A custom target serving fixed pages, sorted by modification date, optionally holding its
/// first fetch until a latch opens.
struct PagedTestTarget: SyncDownTarget {
    static let registryKey = "PagedTarget"

    var idFieldName: String { "Id" }
    var modificationDateFieldName: String { "LastModifiedDate" }
    var isSortedByModificationDate: Bool { true }
    private(set) var totalSize: Int64 = -1
    private var pages: [[JSONValue]]
    let remote: Set<String>
    let started: Latch?
    let proceed: Latch?

    init(pages: [[JSONValue]], started: Latch? = nil, proceed: Latch? = nil) {
        self.pages = pages
        remote = Set(pages.joined().compactMap { $0["Id"]?.string })
        self.started = started
        self.proceed = proceed
    }

    /// `count` records `C000`, `C001`, … modified one second apart from 2023-06-01, in pages of
    /// `pageSize`.
    static func pages(count: Int, pageSize: Int) -> [[JSONValue]] {
        let records = (0..<count).map { number -> JSONValue in
            let date = WallTime(millisecondsSinceEpoch: 1_685_577_600_000 + Int64(number) * 1000).salesforceFormat
            return ["Id": .string("C" + String(String(number + 1000).dropFirst())), "LastModifiedDate": .string(date)]
        }
        return stride(from: 0, to: count, by: pageSize).map { Array(records[$0..<min($0 + pageSize, count)]) }
    }

    static func registry(pages: [[JSONValue]], started: Latch? = nil, proceed: Latch? = nil)
        -> SyncDownTargetRegistry
    {
        var registry = SyncDownTargetRegistry()
        registry.register(registryKey) { _ in PagedTestTarget(pages: pages, started: started, proceed: proceed) }
        return registry
    }

    /// A registry whose target holds its first fetch: `started` opens when the fetch begins,
    /// and the fetch goes on once the test opens `proceed`. Pages of 2 records.
    static func held(count: Int) -> (registry: SyncDownTargetRegistry, started: Latch, proceed: Latch) {
        let started = Latch()
        let proceed = Latch()
        return (registry(pages: pages(count: count, pageSize: 2), started: started, proceed: proceed), started, proceed)
    }

    static var descriptor: SyncDownTargetDescriptor {
        get throws { try SyncDownTargetDescriptor(.custom(registryKey: registryKey)) }
    }

    mutating func startFetch(_ context: SyncDownContext, maxTimeStamp: Int64) async throws -> [JSONValue] {
        await started?.open()
        await proceed?.wait()
        let all = pages.joined().filter { record in
            guard let text = record["LastModifiedDate"]?.string, let time = WallTime(iso8601: text) else { return true }
            return time.millisecondsSinceEpoch > maxTimeStamp
        }
        totalSize = Int64(all.count)
        let pageSize = max(pages.first?.count ?? 1, 1)
        pages = stride(from: 0, to: all.count, by: pageSize).map { Array(all[$0..<min($0 + pageSize, all.count)]) }
        return pages.isEmpty ? [] : pages.removeFirst()
    }

    mutating func continueFetch(_ context: SyncDownContext) async throws -> [JSONValue]? {
        pages.isEmpty ? nil : pages.removeFirst()
    }

    func remoteIds(_ context: SyncDownContext, localIds: [String]) async throws -> Set<String> {
        remote
    }
}
