import BenchmarkSupport
import Determinism
import Foundation
import LosslessJSON

/// How small and how fast candidate codecs make stored values (issue 48): `recordCount` records
/// of `shape` serialized as the store holds them (compact JSON, one value per record), each
/// compressed alone, then in pages of `pageRecordCount` as a sync-down page entry holds them.
///
/// Candidates: zlib raw deflate at levels 1 and 6 and zstd at levels 1 and 3, each without and
/// with a dictionary built from `sampleRecordCount` other records of the same shape (deflate's:
/// the sample's last 32 KiB, its window; zstd's: `ZDICT_trainFromBuffer`, 32 KiB too). Every value
/// must come back byte for byte, or the run fails with a ``CodecError``.
struct CodecBenchmark {
    var recordCount = 100_000
    var pageRecordCount = SyncDownBenchmark.pageSize
    var sampleRecordCount = 2000
    var shape = RecordShape.lorem
    var report = Report()
    /// Deflate's window, and the zstd dictionary's size so the two compare.
    static let dictionaryBytesMax = 32 * 1024
    /// Values compressed between two round-trip checks: the check stays outside the timed calls
    /// without holding every compressed value at once.
    static let chunkValueCount = 1000

    func run() throws -> CodecFigures {
        var figures = CodecFigures(
            parameters: CodecFigures.Parameters(
                records: recordCount, pageRecords: pageRecordCount, dictionarySampleRecords: sampleRecordCount,
                shape: shape),
            build: Self.build)
        var generator = SplitMix64(seed: 7)
        let values = (0..<recordCount).map { shape.record($0, using: &generator).serialized() }
        figures.rawBytes = values.reduce(0) { $0 + $1.count }
        figures.rawBytesPerRecord = (Double(figures.rawBytes) / Double(recordCount)).rounded(decimals: 1)
        report.line(
            "codec: \(recordCount) \(shape.label), \(figures.rawBytes) raw bytes "
                + String(format: "(%.0f per record); %@ build", figures.rawBytesPerRecord, Self.build))
        let codecs = try candidates(into: &figures)
        report.line("each record alone (a stored record value):")
        for codec in codecs {
            figures.perRecord[codec.name] = try measure(codec, values, recordsPerValue: 1)
        }
        let pages = stride(from: 0, to: values.count, by: pageRecordCount).map {
            Self.page(values[$0..<min($0 + pageRecordCount, values.count)])
        }
        report.line("pages of \(pageRecordCount) records (a sync-down page entry):")
        for codec in codecs {
            figures.perPage[codec.name] = try measure(
                codec, pages, recordsPerValue: Double(recordCount) / Double(pages.count))
        }
        return figures
    }

    /// The codecs measured, with dictionaries trained from records the measured ones do not include.
    private func candidates(into figures: inout CodecFigures) throws -> [any RecordCodec] {
        var generator = SplitMix64(seed: 48)
        let samples = (recordCount..<recordCount + sampleRecordCount).map {
            shape.record($0, using: &generator).serialized()
        }
        let deflateDictionary = Array(samples.flatMap(\.self).suffix(Self.dictionaryBytesMax))
        let zstdDictionary = try ZstdDictionary.train(samples, capacity: Self.dictionaryBytesMax)
        figures.dictionaryBytes = ["deflate": deflateDictionary.count, "zstd": zstdDictionary.count]
        report.line(
            "dictionaries from \(sampleRecordCount) other records: deflate \(deflateDictionary.count) B "
                + "(the sample's tail), zstd \(zstdDictionary.count) B (ZDICT_trainFromBuffer)")
        var codecs: [any RecordCodec] = []
        for level: Int32 in [1, 6] {
            codecs.append(try DeflateCodec(level: level))
            codecs.append(try DeflateCodec(level: level, dictionary: deflateDictionary))
        }
        for level: Int32 in [1, 3] {
            codecs.append(try ZstdCodec(level: level))
            codecs.append(try ZstdCodec(level: level, dictionary: zstdDictionary))
        }
        return codecs
    }

    /// `codec` over `values`, chunk by chunk: compress the chunk, decompress it, check it.
    private func measure(
        _ codec: any RecordCodec, _ values: [[UInt8]], recordsPerValue: Double
    ) throws -> CodecMeasure {
        var compressSeconds = 0.0
        var decompressSeconds = 0.0
        var compressedBytes = 0
        for start in stride(from: 0, to: values.count, by: Self.chunkValueCount) {
            let chunk = values[start..<min(start + Self.chunkValueCount, values.count)]
            var compressed: [[UInt8]] = []
            compressed.reserveCapacity(chunk.count)
            compressSeconds += try processCPUSeconds {
                for value in chunk { compressed.append(try codec.compress(value)) }
            }
            var restored: [[UInt8]] = []
            restored.reserveCapacity(chunk.count)
            decompressSeconds += try processCPUSeconds {
                for (value, stored) in zip(chunk, compressed) {
                    restored.append(try codec.decompress(stored, originalCount: value.count))
                }
            }
            for (offset, (value, back)) in zip(chunk, restored).enumerated() where value != back {
                throw CodecError(
                    code: .roundTripMismatch, codec: codec.name,
                    message: "value \(start + offset) came back different (\(back.count) bytes, \(value.count) stored)")
            }
            compressedBytes += compressed.reduce(0) { $0 + $1.count }
        }
        return describe(
            codec.name, compressedBytes: compressedBytes, rawBytes: values.reduce(0) { $0 + $1.count },
            records: Double(values.count) * recordsPerValue, seconds: (compressSeconds, decompressSeconds))
    }

    /// The measure from the sums, printed as one line.
    private func describe(
        _ name: String, compressedBytes: Int, rawBytes: Int, records: Double,
        seconds: (compress: Double, decompress: Double)
    ) -> CodecMeasure {
        let measure = CodecMeasure(
            compressedBytes: compressedBytes,
            ratio: (Double(rawBytes) / Double(compressedBytes)).rounded(decimals: 3),
            compressedBytesPerRecord: (Double(compressedBytes) / records).rounded(decimals: 1),
            compressMBPerSecond: (Double(rawBytes) / 1e6 / seconds.compress).rounded(decimals: 1),
            decompressMBPerSecond: (Double(rawBytes) / 1e6 / seconds.decompress).rounded(decimals: 1),
            compressNanosPerRecord: (seconds.compress * 1e9 / records).rounded(decimals: 0),
            decompressNanosPerRecord: (seconds.decompress * 1e9 / records).rounded(decimals: 0))
        report.line(
            String(
                format: "  %@ %11d B %7.1f B/record %6.2f×  compress %8.1f MB/s %8.0f ns/record  "
                    + "decompress %8.1f MB/s %8.0f ns/record",
                name.padding(toLength: 14, withPad: " ", startingAt: 0), compressedBytes,
                measure.compressedBytesPerRecord, measure.ratio, measure.compressMBPerSecond,
                measure.compressNanosPerRecord, measure.decompressMBPerSecond, measure.decompressNanosPerRecord))
        return measure
    }

    /// Records as a page entry holds them: one JSON array.
    private static func page(_ values: ArraySlice<[UInt8]>) -> [UInt8] {
        var page: [UInt8] = [UInt8(ascii: "[")]
        for (position, value) in values.enumerated() {
            if position > 0 { page.append(UInt8(ascii: ",")) }
            page += value
        }
        page.append(UInt8(ascii: "]"))
        return page
    }

    /// The build these figures come from.
    static var build: String {
        #if DEBUG
            "debug"
        #else
            "release"
        #endif
    }
}
