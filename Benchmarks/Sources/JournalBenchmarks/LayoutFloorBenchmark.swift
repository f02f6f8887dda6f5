import BenchmarkSupport
import Determinism
import Foundation
import LMDBStore
import LosslessJSON
import SyncTesting

/// What LMDB alone costs for the soup layouts, with no JSON work and no Swift values: the floor
/// under any implementation of sync-down ingest, soup inserts and reSync on this storage.
///
/// Every byte is prepared before the clock starts: the benchmark records' JSON, their four
/// index keys (shaped like the soups' keys: prefix, value, entry id) and the journal pages.
/// Two layouts are measured, each with durable commits:
///
/// - **copy**: the journal entry, then per record the record's bytes, four index keys and the
///   record's key list (what the soup projection writes today);
/// - **reference**: the journal entry, then per record a 16-byte reference into it and four
///   index keys (the least a record store with four indexes can write).
///
/// Then 100 changed records are written to stores of `smallCount` and `largeCount` records, as
/// a reSync does: one entry of 100 records, and each record replaced with its index keys moved.
///
/// LMDB alone, no journal: no retention or encryption applies, so it measures no configuration.
struct LayoutFloorBenchmark {
    var recordCount = 100_000
    var smallCount = 10_000
    var largeCount = 1_000_000
    var repeatCount = 21
    /// Records per journal entry, one entry per transaction.
    var pageSize = 2000
    var report = Report()
    static let changedCount = 100

    enum Layout: String, CaseIterable {
        case copy
        case copyWithKeyListInline = "copy, key list in the record's value,"
        case reference
        /// The journal entries alone: no record store at all, the ceiling for any design.
        case journalOnly = "journal only"

        /// The layout's key in the JSON figures.
        var key: String {
            switch self {
            case .copy: "copy"
            case .copyWithKeyListInline: "copyKeyListInline"
            case .reference: "reference"
            case .journalOnly: "journalOnly"
            }
        }
    }

    /// A record's bytes and index keys.
    struct Prepared {
        var json: [UInt8]
        var indexKeys: [[UInt8]]
    }

    /// The JSON figures of `journal-benchmarks floor` (docs/benchmarks.md).
    struct Figures: Encodable {
        var records: Int
        var recordsPerEntry: Int
        var smallSoup: Int
        var largeSoup: Int
        /// Keyed by layout.
        var ingestRecordsPerSecond: [String: Double] = [:]
        /// Keyed by layout, `sqliteNormal` and `sqliteFull`.
        var reSyncSmallP50Millis: [String: Double] = [:]
        var reSyncLargeP50Millis: [String: Double] = [:]
        var reSyncRatio: [String: Double] = [:]

        mutating func addReSync(_ key: String, small: Double, large: Double) {
            reSyncSmallP50Millis[key] = (small * 1000).rounded(decimals: 2)
            reSyncLargeP50Millis[key] = (large * 1000).rounded(decimals: 2)
            reSyncRatio[key] = (large / small).rounded(decimals: 2)
        }
    }

    func run() throws -> Figures {
        var figures = Figures(
            records: recordCount, recordsPerEntry: pageSize, smallSoup: smallCount, largeSoup: largeCount)
        report.line("LMDB floor: \(pageSize) records per journal entry, 4 index keys per record, fsync on commit")
        let records = Self.prepare(0..<recordCount, seed: 7)
        for layout in Layout.allCases {
            let seconds = try ingestSeconds(records, layout: layout)
            figures.ingestRecordsPerSecond[layout.key] = (Double(recordCount) / seconds).rounded(decimals: 0)
            report.line(
                String(
                    format: "ingest %d records, %@ layout: %.2f s, %9.0f records/s", recordCount,
                    layout.rawValue, seconds, Double(recordCount) / seconds))
        }
        for layout in Layout.allCases where layout != .journalOnly {
            let small = try reSyncSeconds(soupCount: smallCount, layout: layout)
            let large = try reSyncSeconds(soupCount: largeCount, layout: layout)
            figures.addReSync(layout.key, small: small, large: large)
            report.line(
                String(
                    format:
                        "reSync of %d records, %@ layout: soup of %d p50 %.2f ms, soup of %d p50 %.2f ms, ratio %.2f",
                    Self.changedCount, layout.rawValue, smallCount, small * 1000, largeCount, large * 1000,
                    large / small))
        }
        for syncsEveryCommit in [false, true] {
            let small = try SQLiteSoupBaseline.reSyncSeconds(
                soupCount: smallCount, syncsEveryCommit: syncsEveryCommit, repeatCount: repeatCount)
            let large = try SQLiteSoupBaseline.reSyncSeconds(
                soupCount: largeCount, syncsEveryCommit: syncsEveryCommit, repeatCount: repeatCount)
            figures.addReSync(syncsEveryCommit ? "sqliteFull" : "sqliteNormal", small: small, large: large)
            report.line(
                String(
                    format:
                        "reSync of %d records, SQLite (SmartStore layout, WAL, synchronous %@): soup of %d p50 %.2f ms, soup of %d p50 %.2f ms, ratio %.2f",
                    Self.changedCount, syncsEveryCommit ? "FULL" : "NORMAL", smallCount, small * 1000, largeCount,
                    large * 1000, large / small))
        }
        return figures
    }

    private func ingestSeconds(_ records: [Prepared], layout: Layout) throws -> Double {
        let directory = try TemporaryDirectory("bench-floor")
        defer { directory.remove() }
        let store = try FloorStore(directory, durable: true, pageSize: pageSize)
        let start = ContinuousClock.now
        try store.append(records, firstEntryId: 1, layout: layout)
        return (ContinuousClock.now - start).inSeconds
    }

    private func reSyncSeconds(soupCount: Int, layout: Layout) throws -> Double {
        let directory = try TemporaryDirectory("bench-floor-resync")
        defer { directory.remove() }
        // Filled without fsync, then reopened durable: the fill is not what is measured.
        do {
            let filling = try FloorStore(directory, durable: false, pageSize: pageSize)
            var next = 0
            while next < soupCount {
                let end = min(next + 50_000, soupCount)
                try filling.append(Self.prepare(next..<end, seed: 7), firstEntryId: Int64(next + 1), layout: layout)
                next = end
            }
        }
        let store = try FloorStore(directory, durable: true, pageSize: pageSize, firstSequence: 1 << 32)
        var generator = SplitMix64(seed: 11)
        var samples: [Double] = []
        for _ in 0..<repeatCount {
            let indexes = (0..<Self.changedCount).map { _ in Int.random(in: 0..<soupCount, using: &generator) }
            let changed = indexes.map { Self.prepare($0..<$0 + 1, seed: generator.next())[0] }
            let start = ContinuousClock.now
            try store.replace(changed, entryIds: indexes.map { Int64($0 + 1) }, layout: layout)
            samples.append((ContinuousClock.now - start).inSeconds)
        }
        return samples.sorted()[samples.count / 2]
    }

    /// The records `indexes` of the soup benchmarks, serialized, with their index keys.
    static func prepare(_ indexes: Range<Int>, seed: UInt64) -> [Prepared] {
        var generator = SplitMix64(seed: seed)
        return indexes.map { index in
            let record = SyncDownBenchmark.record(index, using: &generator)
            let entryId = Int64(index + 1)
            let keys = BenchmarkRecords.indexedPaths.enumerated().map { position, path in
                var key: [UInt8] = [0, 0, 0, 1, 0, UInt8(position)]
                switch record[path.0] {
                case .string(let text)?: key += Array(text.utf8) + [0]
                case .number(let number)?:
                    key += withUnsafeBytes(of: number.doubleValue.bitPattern.bigEndian, Array.init)
                default: key.append(0)
                }
                return key + withUnsafeBytes(of: entryId.bigEndian, Array.init)
            }
            return Prepared(json: record.serialized(), indexKeys: keys)
        }
    }
}

/// Three databases shaped like the journal's and the soups': entries, records, index keys.
private final class FloorStore {
    /// The next journal sequence; reopened stores start far above what a fill appends.
    var nextSequence: UInt64
    let pageSize: Int
    let environment: Environment
    let entries: Database
    let records: Database
    let index: Database
    let keyLists: Database

    init(_ directory: TemporaryDirectory, durable: Bool, pageSize: Int, firstSequence: UInt64 = 1) throws {
        nextSequence = firstSequence
        self.pageSize = pageSize
        var options = EnvironmentOptions()
        options.mapSizeBytes = 8 << 30
        options.flushesOnCommit = durable
        environment = try Environment(directory: directory.appending("store"), options: options)
        entries = try environment.database(named: "entries")
        records = try environment.database(named: "records")
        index = try environment.database(named: "index")
        keyLists = try environment.database(named: "keys")
    }

    /// Appends new records, a journal entry per page.
    func append(_ prepared: [LayoutFloorBenchmark.Prepared], firstEntryId: Int64, layout: LayoutFloorBenchmark.Layout)
        throws
    {
        for pageStart in stride(from: 0, to: prepared.count, by: pageSize) {
            let page = prepared[pageStart..<min(pageStart + pageSize, prepared.count)]
            try environment.write { (transaction: Transaction) throws -> Void in
                let sequence = try appendEntry(page, transaction)
                for (offset, record) in zip(page.indices, page) {
                    let key = Self.recordKey(firstEntryId + Int64(offset))
                    try putRecord(record, key: key, sequence: sequence, options: .append, layout: layout, transaction)
                }
            }
        }
    }

    /// Replaces records in one transaction, as a reSync's page does.
    func replace(_ prepared: [LayoutFloorBenchmark.Prepared], entryIds: [Int64], layout: LayoutFloorBenchmark.Layout)
        throws
    {
        try environment.write { (transaction: Transaction) throws -> Void in
            let sequence = try appendEntry(prepared[...], transaction)
            for (record, entryId) in zip(prepared, entryIds) {
                let key = Self.recordKey(entryId)
                // The old index keys, from the record's key list.
                let list: [UInt8]
                switch layout {
                case .copy: list = try transaction.get(keyLists, key: key) ?? []
                case .copyWithKeyListInline:
                    let value = try transaction.get(records, key: key) ?? []
                    list = value.isEmpty ? [] : Array(value[2..<2 + (Int(value[0]) << 8 | Int(value[1]))])
                case .reference: list = try Array((transaction.get(records, key: key) ?? []).dropFirst(16))
                case .journalOnly: list = []
                }
                for oldKey in Self.decodeKeyList(list) { _ = try transaction.delete(index, key: oldKey) }
                try putRecord(record, key: key, sequence: sequence, options: [], layout: layout, transaction)
            }
        }
    }

    private func appendEntry(_ page: ArraySlice<LayoutFloorBenchmark.Prepared>, _ transaction: Transaction) throws
        -> UInt64
    {
        let sequence = nextSequence
        nextSequence += 1
        let payload = page.reduce(into: [UInt8]()) { $0 += $1.json }
        try transaction.put(
            entries, key: withUnsafeBytes(of: sequence.bigEndian, Array.init), value: payload, options: .append)
        return sequence
    }

    private func putRecord(
        _ record: LayoutFloorBenchmark.Prepared, key: [UInt8], sequence: UInt64, options: PutOptions,
        layout: LayoutFloorBenchmark.Layout, _ transaction: Transaction
    ) throws {
        switch layout {
        case .copy:
            try transaction.put(records, key: key, value: record.json, options: options)
            try transaction.put(keyLists, key: key, value: Self.encodeKeyList(record.indexKeys), options: options)
        case .copyWithKeyListInline:
            let list = Self.encodeKeyList(record.indexKeys)
            let value = [UInt8(list.count >> 8), UInt8(list.count & 0xFF)] + list + record.json
            try transaction.put(records, key: key, value: value, options: options)
        case .reference:
            let reference = withUnsafeBytes(of: sequence.bigEndian, Array.init) + [UInt8](repeating: 0, count: 8)
            try transaction.put(
                records, key: key, value: reference + Self.encodeKeyList(record.indexKeys), options: options)
        case .journalOnly:
            return
        }
        for indexKey in record.indexKeys { try transaction.put(index, key: indexKey, value: []) }
    }

    static func recordKey(_ entryId: Int64) -> [UInt8] {
        [0, 0, 0, 1] + withUnsafeBytes(of: entryId.bigEndian, Array.init)
    }

    /// Keys, each after its length in one byte (index keys here are shorter than 256 bytes).
    static func encodeKeyList(_ keys: [[UInt8]]) -> [UInt8] {
        keys.reduce(into: []) { $0 += [UInt8(truncatingIfNeeded: $1.count)] + $1 }
    }

    static func decodeKeyList(_ bytes: [UInt8]) -> [[UInt8]] {
        var keys: [[UInt8]] = []
        var position = 0
        while position < bytes.count {
            let end = min(bytes.count, position + 1 + Int(bytes[position]))
            keys.append(Array(bytes[position + 1..<end]))
            position = end
        }
        return keys
    }
}
