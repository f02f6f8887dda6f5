package import Foundation

/// Reads a file line by line without loading it whole, so imports of large journals use
/// bounded memory.
package enum JSONLinesFile {
    /// How much of the file is read at a time.
    static let chunkSizeBytes = 1 << 20

    /// The longest line read: an export line of the largest entry, its payload in base64
    /// (4 bytes per 3) plus 1 MiB for the sequence, kind, header and checksum. A longer line
    /// is an error, so a file without newlines (`/dev/zero`) is never read whole.
    package static let lineBytesMax = JournalEntry.payloadSizeMaxBytes / 3 * 4 + (1 << 20)

    /// Calls `body` with each non-empty line (without its newline) and its 1-based number.
    ///
    /// Only regular files are read: a device or a pipe may never end, and an import reads its
    /// file twice.
    static func forEachLine(in file: URL, _ body: (_ lineNumber: Int, _ line: [UInt8]) throws -> Void) throws {
        try forEachLine(in: file, lineBytesMax: lineBytesMax, body)
    }

    package static func forEachLine(
        in file: URL, lineBytesMax: Int, _ body: (_ lineNumber: Int, _ line: [UInt8]) throws -> Void
    ) throws {
        let type: FileAttributeType?
        do {
            type = try FileManager.default.attributesOfItem(atPath: file.path)[.type] as? FileAttributeType
        } catch {
            throw JournalError(.malformedExport, "cannot read \(file.path): no such file", cause: error)
        }
        guard type == .typeRegular else {
            throw JournalError(.malformedExport, "\(file.path) is not a regular file: an export is a JSON-lines file")
        }
        let handle: FileHandle
        do {
            handle = try FileHandle(forReadingFrom: file)
        } catch {
            throw JournalError(
                .malformedExport, "cannot open \(file.path): permission denied or unreadable", cause: error)
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
            guard pending.count <= lineBytesMax else {
                throw JournalError(
                    .malformedExport,
                    "\(file.lastPathComponent) line \(lineNumber + 1) is longer than \(lineBytesMax) bytes, the "
                        + "longest an export line can be")
            }
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
