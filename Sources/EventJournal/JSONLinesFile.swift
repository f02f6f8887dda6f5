import Foundation

/// Reads a file line by line without loading it whole, so imports of large journals use
/// bounded memory.
enum JSONLinesFile {
    /// How much of the file is read at a time.
    static let chunkSizeBytes = 1 << 20

    /// Calls `body` with each non-empty line (without its newline) and its 1-based number.
    static func forEachLine(in file: URL, _ body: (_ lineNumber: Int, _ line: [UInt8]) throws -> Void) throws {
        let handle: FileHandle
        do {
            handle = try FileHandle(forReadingFrom: file)
        } catch {
            throw JournalError(
                .malformedExport, "cannot open \(file.path): \(error.localizedDescription)", cause: error)
        }
        defer { try? handle.close() }
        var pending: [UInt8] = []
        var lineNumber = 0
        while true {
            let chunk = try handle.read(upToCount: chunkSizeBytes) ?? Data()
            if chunk.isEmpty { break }
            pending.append(contentsOf: chunk)
            var start = 0
            while let newline = pending[start...].firstIndex(of: 0x0A) {
                lineNumber += 1
                if newline > start { try body(lineNumber, Array(pending[start..<newline])) }
                start = newline + 1
            }
            pending.removeFirst(start)
        }
        if !pending.isEmpty { try body(lineNumber + 1, pending) }
    }

    /// The end of a file of lines that an appender may have been killed in the middle of.
    struct CompleteTail {
        /// The last line ended by a newline (without it), or `nil` when there is none.
        var lastLine: [UInt8]?
        /// The offset just past that newline: where the whole lines end. Bytes after it are a
        /// line whose writer was killed before it finished.
        var completeBytes: UInt64
        /// The file's size.
        var fileBytes: UInt64
    }

    /// Reads the file from its end, in chunks, back to its last two newlines.
    static func completeTail(of file: URL) throws -> CompleteTail {
        let handle: FileHandle
        do {
            handle = try FileHandle(forReadingFrom: file)
        } catch {
            throw JournalError(.storage, "cannot open \(file.path): \(error.localizedDescription)", cause: error)
        }
        defer { try? handle.close() }
        let size = try handle.seekToEnd()
        var start = size
        var tail: [UInt8] = []
        var lastNewline: Int?
        while start > 0 {
            let chunkStart = start > UInt64(chunkSizeBytes) ? start - UInt64(chunkSizeBytes) : 0
            try handle.seek(toOffset: chunkStart)
            let chunk = try handle.read(upToCount: Int(start - chunkStart)) ?? Data()
            tail.insert(contentsOf: chunk, at: 0)
            lastNewline = lastNewline.map { $0 + chunk.count }
            start = chunkStart
            if lastNewline == nil { lastNewline = tail.lastIndex(of: 0x0A) }
            guard let lastNewline else { continue }
            if let previous = tail[..<lastNewline].lastIndex(of: 0x0A) {
                return CompleteTail(
                    lastLine: Array(tail[(previous + 1)..<lastNewline]),
                    completeBytes: start + UInt64(lastNewline + 1), fileBytes: size)
            }
        }
        guard let lastNewline else { return CompleteTail(lastLine: nil, completeBytes: 0, fileBytes: size) }
        return CompleteTail(
            lastLine: Array(tail[..<lastNewline]), completeBytes: UInt64(lastNewline + 1), fileBytes: size)
    }
}
