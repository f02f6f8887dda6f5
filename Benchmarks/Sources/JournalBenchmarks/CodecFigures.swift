import BenchmarkSupport

/// The JSON figures of `journal-benchmarks codec` (docs/benchmarks.md lists the fields): the raw
/// size of the records, then each candidate codec's measures, once per record and once per page.
struct CodecFigures: Encodable {
    struct Parameters: Encodable {
        var records: Int
        var pageRecords: Int
        var dictionarySampleRecords: Int
        var shape: RecordShape
    }

    var parameters: Parameters
    /// `debug` or `release`: throughput from a debug build says little (ratios do not depend on it).
    var build: String
    /// The records' compact JSON, one value per record, summed.
    var rawBytes = 0
    var rawBytesPerRecord = 0.0
    /// The dictionaries' sizes, by codec family (`deflate`, `zstd`).
    var dictionaryBytes: [String: Int] = [:]
    /// Each record compressed alone, as a stored record value: by codec name.
    var perRecord: [String: CodecMeasure] = [:]
    /// Each page of `pageRecords` records (a JSON array) compressed as one value, as a sync-down
    /// page entry of the journal: by codec name.
    var perPage: [String: CodecMeasure] = [:]
}

/// One codec's measures over every value of one granularity. Throughput is over the raw bytes
/// (MB = 10^6 bytes) per second of process CPU time, so it does not count waiting for a core.
struct CodecMeasure: Encodable {
    /// Every compressed value, headers included, summed.
    var compressedBytes: Int
    /// Raw bytes over compressed bytes.
    var ratio: Double
    var compressedBytesPerRecord: Double
    var compressMBPerSecond: Double
    var decompressMBPerSecond: Double
    var compressNanosPerRecord: Double
    var decompressNanosPerRecord: Double
}
