import Foundation
import SyncTesting

/// `journal-replay serve` or `msync inspect` running as a child process, with the URL it
/// printed; stopped with SIGTERM by the test that started it.
struct ServedProcess {
    let process: Process
    let port: Int
    let token: String

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// Starts `product` with `arguments` and reads the `inspector: URL` line it prints first.
    static func start(
        _ product: BuiltProduct, _ arguments: [String], environment: [String: String]? = nil,
        currentDirectory: URL? = nil
    ) throws -> ServedProcess {
        let process = Process()
        process.executableURL = product.url
        process.arguments = arguments
        if let environment { process.environment = environment }
        if let currentDirectory { process.currentDirectoryURL = currentDirectory }
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        var line: [UInt8] = []
        // The first line is the URL; the server prints it once bound, then serves until stopped.
        while line.last != UInt8(ascii: "\n") {
            let byte = output.fileHandleForReading.readData(ofLength: 1)
            guard let first = byte.first else { break }
            line.append(first)
        }
        let text = String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard text.hasPrefix("inspector: "), let url = URLComponents(string: String(text.dropFirst(11))),
            let port = url.port, let token = url.queryItems?.first(where: { $0.name == "token" })?.value
        else {
            process.terminate()
            throw Failure(description: "\(arguments) printed '\(text)' instead of the inspector's URL")
        }
        return ServedProcess(process: process, port: port, token: token)
    }

    func get(_ path: String, _ query: String = "") async throws -> LoopbackHTTP.Answer {
        try await LoopbackHTTP.get(port: port, "\(path)?token=\(token)\(query.isEmpty ? "" : "&" + query)")
    }

    func stop() {
        process.terminate()
        process.waitUntilExit()
    }
}
