import Foundation

/// Where a benchmark's output goes: human-readable lines, and its figures as one JSON document.
///
/// With `--json` standard output carries the JSON document alone, so `journal-benchmarks soup
/// --json > soup.json` keeps it clean while the lines still show progress on standard error.
struct Report: Sendable {
    /// Whether ``finish(_:_:)`` prints the figures as JSON.
    var printsJSON = false

    /// Prints one human-readable line.
    func line(_ text: String) {
        let data = Data((text + "\n").utf8)
        if printsJSON {
            FileHandle.standardError.write(data)
        } else {
            FileHandle.standardOutput.write(data)
        }
    }

    /// Prints `{"<benchmark>": figures}` with sorted keys when JSON was asked for; nothing otherwise.
    func finish(_ benchmark: String, _ figures: some Encodable) throws {
        guard printsJSON else { return }
        FileHandle.standardOutput.write(try Self.encoded([benchmark: figures]) + Data("\n".utf8))
    }

    /// `value` as JSON with sorted keys, so two runs' documents compare line by line.
    static func encoded(_ value: some Encodable) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(value)
    }
}
