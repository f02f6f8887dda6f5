import Dispatch
import Foundation
import LMDBStore
import Synchronization

/// Reads stored entries and decodes them for the projections on a second thread, while the
/// calling thread folds the ones before (issue 25: a fold's payload parsing and envelope
/// checks are a third of its time and need no projection state).
///
/// The fold's result does not depend on the second thread: each entry's decoded values are a
/// function of the entry and of decoders made before the transaction's first entry, and the
/// projections check that they still fit (``Projection/apply(_:decoded:in:)``). Entries reach
/// the fold in journal order, in chunks, and at most ``chunksInFlightMax`` chunks wait, so the
/// memory it holds is bounded whatever the range.
enum DecodeAhead {
    /// Entries per chunk handed from the reading thread to the folding one.
    static let chunkEntryCountMax = 256
    /// Payload bytes that close a chunk early: a sync-down page is megabytes.
    static let chunkPayloadBytesMax = 1 << 20
    /// Chunks decoded and not yet folded, at most.
    static let chunksInFlightMax = 4
    /// Shorter ranges fold on the calling thread alone: a thread costs more than they save.
    static let rangeCountMin: UInt64 = 64

    /// One stored entry with its envelope's checksum and each projection's decoded value.
    struct DecodedEntry: Sendable {
        var entry: JournalEntry
        var checksum: UInt32
        /// One value per decoder given, in the same order.
        var values: [(any Sendable)?]
    }

    /// Whether a fold of `count` entries is worth a second thread: only a range long enough,
    /// on a machine with more than one processor.
    static func isWorthwhile(count: UInt64) -> Bool {
        count >= rangeCountMin && ProcessInfo.processInfo.activeProcessorCount > 1
    }

    /// Calls `body` with every stored entry of `range`, in order, read from `entriesTransaction`
    /// and decoded by `decoders` on a second thread.
    ///
    /// `entriesTransaction` must be a read transaction (`MDB_NOTLS`: not tied to a thread),
    /// which the calling thread does not use until this returns.
    /// - Throws: what reading the entries throws (``JournalError/Code/gap``,
    ///   ``JournalError/Code/corruptEntry``), at the entry where the plain scan would, or what
    ///   `body` throws. Either way the second thread has stopped when this returns.
    static func forEachEntry(
        of entries: Database, in entriesTransaction: Transaction, _ range: ClosedRange<UInt64>,
        decoders: [(any ProjectionEntryDecoder)?], _ body: (DecodedEntry) throws -> Void
    ) throws {
        let channel = Channel()
        let reading = UncheckedTransaction(transaction: entriesTransaction)
        let reader = Thread {
            defer { channel.readerEnded.signal() }
            read(entries, in: reading.transaction, range, decoders: decoders, into: channel)
        }
        // The fold's parser recurses into nested values as deep as they go, as on the caller's.
        reader.stackSize = 8 << 20
        reader.start()
        defer {
            channel.cancel()
            channel.readerEnded.wait()
        }
        while let chunk = try channel.receive() {
            for decoded in chunk { try body(decoded) }
            channel.giveBack(chunk)
        }
    }

    /// The reading thread's work: scans `range`, decodes, and sends chunks until the range
    /// ends, the scan fails or the fold stops listening.
    private static func read(
        _ entries: Database, in transaction: Transaction, _ range: ClosedRange<UInt64>,
        decoders: [(any ProjectionEntryDecoder)?], into channel: Channel
    ) {
        var decoders = decoders
        var chunk: [DecodedEntry] = []
        var chunkBytes = 0
        do {
            var listening = true
            try JournalReader.forEachStoredEntry(of: entries, in: transaction, range) { entry, checksum in
                var values: [(any Sendable)?] = []
                values.reserveCapacity(decoders.count)
                for position in decoders.indices { values.append(decoders[position]?.decode(entry)) }
                chunk.append(DecodedEntry(entry: entry, checksum: checksum, values: values))
                chunkBytes += entry.payload.count
                if chunk.count >= chunkEntryCountMax || chunkBytes >= chunkPayloadBytesMax {
                    listening = channel.send(.entries(chunk))
                    chunk.removeAll(keepingCapacity: true)
                    chunkBytes = 0
                }
                return listening
            }
            guard listening else { return }
            if !chunk.isEmpty, !channel.send(.entries(chunk)) { return }
            _ = channel.send(.ended)
        } catch {
            if !chunk.isEmpty, !channel.send(.entries(chunk)) { return }
            _ = channel.send(.failed(ReadFailure(error: error)))
        }
    }

    /// The error the reading thread met, carried to the folding thread, which throws it.
    private struct ReadFailure: @unchecked Sendable {
        // Only the folding thread touches it once sent: the reader has stopped by then.
        var error: any Error
    }

    /// A read transaction handed to the reading thread, which alone uses it until
    /// ``forEachEntry(of:in:_:decoders:_:)`` returns (LMDB's `MDB_NOTLS` allows that).
    private struct UncheckedTransaction: @unchecked Sendable {
        var transaction: Transaction
    }

    private enum Message: Sendable {
        case entries([DecodedEntry])
        case ended
        case failed(ReadFailure)
    }

    /// A bounded queue from the reading thread to the folding one.
    private final class Channel: Sendable {
        private let messages = Mutex<[Message]>([])
        /// Counts messages waiting.
        private let waiting = DispatchSemaphore(value: 0)
        /// Counts room for more chunks.
        private let room = DispatchSemaphore(value: DecodeAhead.chunksInFlightMax)
        private let cancelled = Atomic<Bool>(false)
        /// Signalled once when the reading thread returns.
        let readerEnded = DispatchSemaphore(value: 0)

        /// Chunks folded, waiting for the reading thread to free them.
        private let folded = Mutex<[[DecodedEntry]]>([])

        /// Waits for room, then queues `message`; `false` once the fold stopped listening.
        func send(_ message: Message) -> Bool {
            freeFolded()
            room.wait()
            guard !cancelled.load(ordering: .acquiring) else { return false }
            messages.withLock { $0.append(message) }
            waiting.signal()
            return true
        }

        /// The next chunk, or `nil` after the last; throws the reading thread's error.
        func receive() throws -> [DecodedEntry]? {
            waiting.wait()
            let message = messages.withLock { $0.removeFirst() }
            room.signal()
            switch message {
            case .entries(let chunk): return chunk
            case .ended: return nil
            case .failed(let failure): throw failure.error
            }
        }

        /// Hands a folded chunk back to the reading thread, which allocated its values: freeing
        /// them there takes the deallocations off the folding thread, the busier of the two.
        func giveBack(_ chunk: [DecodedEntry]) {
            folded.withLock { $0.append(chunk) }
        }

        private func freeFolded() {
            let chunks = folded.withLock { folded in
                defer { folded.removeAll() }
                return folded
            }
            _ = consume chunks
        }

        /// Stops the reading thread at its next chunk, waking it if it waits for room.
        func cancel() {
            cancelled.store(true, ordering: .releasing)
            room.signal()
        }
    }
}
