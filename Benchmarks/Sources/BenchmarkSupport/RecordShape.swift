public import ArgumentParser
public import Determinism
public import LosslessJSON

/// What the generated records look like: the benchmarks' original ~1 KB lorem records, or records
/// shaped like an org's (Accounts, Contacts, Opportunities and Cases as the REST API returns them).
///
/// Both shapes carry the soup benchmark's four indexed paths (``BenchmarkRecords/indexedPaths``)
/// with the same types and value ranges, and the same ``id(_:)`` for a given index in a shape, so
/// every workload's lookups and range pages find records whichever shape it stores. The raw
/// values are what `--shape` takes and what the JSON figures carry as `parameters.shape`.
public enum RecordShape: String, CaseIterable, Sendable, Codable, ExpressibleByArgument {
    /// ``BenchmarkRecords``: ~1 KB, about 80 % one repeated phrase. Byte for byte the records of
    /// every figure measured before issue 48, so old and new figures compare.
    case lorem
    /// ``OrgRecords``: standard objects with 20 to 60 fields, nulls, picklists, names, addresses,
    /// dates and ids, and a long varied description on about one record in five.
    case org

    /// The record at `index`; `generator` supplies everything that is not derived from the index.
    public func record(_ index: Int, using generator: inout SplitMix64) -> JSONValue {
        switch self {
        case .lorem: BenchmarkRecords.record(index, using: &generator)
        case .org: OrgRecords.record(index, using: &generator)
        }
    }

    /// The `Id` of the record at `index`: unique per index, 18 characters.
    public func id(_ index: Int) -> String {
        switch self {
        case .lorem: BenchmarkRecords.id(index)
        case .org: OrgRecords.id(index)
        }
    }

    /// How the lines for people describe the records.
    public var label: String {
        switch self {
        case .lorem: "~1 KB lorem records"
        case .org: "org-shaped records (Account, Contact, Opportunity, Case)"
        }
    }
}
