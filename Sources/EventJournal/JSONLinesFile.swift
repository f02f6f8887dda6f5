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

    /// The file's last non-empty line (without its newline), read from the end in chunks, or
    /// `nil` for an empty file.
    static func lastLine(in file: URL) throws -> [UInt8]? {
        let handle: FileHandle
        do {
            handle = try FileHandle(forReadingFrom: file)
        } catch {
            throw JournalError(.storage, "cannot open \(file.path): \(error.localizedDescription)", cause: error)
        }
        defer { try? handle.close() }
        var end = try handle.seekToEnd()
        var tail: [UInt8] = []
        while end > 0 {
            let start = end > UInt64(chunkSizeBytes) ? end - UInt64(chunkSizeBytes) : 0
            try handle.seek(toOffset: start)
            let chunk = try handle.read(upToCount: Int(end - start)) ?? Data()
            tail.insert(contentsOf: chunk, at: 0)
            end = start
            while tail.last == 0x0A { tail.removeLast() }
            if let newline = tail.lastIndex(of: 0x0A) { return Array(tail[(newline + 1)...]) }
        }
        return tail.isEmpty ? nil : tail
    }
}
