import Determinism
import Foundation
import Logging
import LosslessJSON
import SalesforceAPI
import Testing

/// Runs the built `salesforce-simulator` binary end to end.
@Suite struct SimulatorExecutableTests {
    static let binary = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent(".build/debug/salesforce-simulator")

    /// `swift build --build-tests` (the CI command) builds the binary; a bare `swift test` may not.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: binary.path), "needs swift build --build-tests"))
    func executablePrintsItsURLAndTokenThenServesQueries() async throws {
        let process = Process()
        process.executableURL = Self.binary
        process.arguments = ["--port", "0", "--access-token", "cli-token", "--seed", "3"]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        defer { process.terminate() }
        var line: [UInt8] = []
        while line.last != UInt8(ascii: "\n") {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            line += chunk
        }
        #expect(String(decoding: line, as: UTF8.self).hasPrefix("{\"url\": \"http://127.0.0.1:"))
        let announced = try JSONValue(parsing: line.dropLast())
        #expect(announced["accessToken"]?.string == "cli-token")
        let base = try #require(announced["url"]?.string)
        #expect(base.hasPrefix("http://127.0.0.1:"))
        let client = SalesforceClient(
            credentials: SalesforceCredentials(instanceURL: try #require(URL(string: base)), accessToken: "cli-token"),
            logger: Logger.discarding)
        let page = try await client.query("SELECT COUNT() FROM Account")
        #expect(page.totalSize == 1000)
    }
}
