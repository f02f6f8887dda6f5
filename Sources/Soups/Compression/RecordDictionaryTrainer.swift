import CZstd

/// Trains a zstd dictionary from a sample of a soup's records (decision 0030).
enum RecordDictionaryTrainer {
    /// The largest dictionary trained: 32 KiB, as measured in decision 0028.
    static let dictionaryBytesMax = 32 * 1024
    /// The smallest dictionary worth journaling: below it the sample is too small to train from.
    static let dictionaryBytesMin = 1024
    /// zstd's guide asks for a sample about a hundred times the dictionary's size; a tenth of the
    /// sample is the largest dictionary trained from it.
    static let sampleBytesPerDictionaryByte = 10

    /// A dictionary trained from `samples` with `ZDICT_trainFromBuffer`, or `nil` when the
    /// sample is too small or zstd fails (training failure means no dictionary, never a trap).
    static func dictionary(from samples: [[UInt8]]) -> [UInt8]? {
        let totalBytes = samples.reduce(0) { $0 + $1.count }
        let capacity = min(dictionaryBytesMax, totalBytes / sampleBytesPerDictionaryByte)
        guard samples.count >= 8, capacity >= dictionaryBytesMin else { return nil }
        var joined: [UInt8] = []
        joined.reserveCapacity(totalBytes)
        for sample in samples { joined.append(contentsOf: sample) }
        let sizes = samples.map(\.count)
        var failed = false
        let dictionary = [UInt8](unsafeUninitializedCapacity: capacity) { output, written in
            let result = joined.withUnsafeBytes { input in
                sizes.withUnsafeBufferPointer { sizes in
                    ZDICT_trainFromBuffer(
                        output.baseAddress, output.count, input.baseAddress, sizes.baseAddress, UInt32(sizes.count))
                }
            }
            failed = ZDICT_isError(result) != 0
            written = failed ? 0 : result
        }
        return failed || dictionary.isEmpty ? nil : dictionary
    }
}
