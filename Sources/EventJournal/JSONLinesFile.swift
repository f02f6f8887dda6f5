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
}
