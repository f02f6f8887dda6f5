import Foundation
import LosslessJSON

/// The built `salesforce-simulator` running as its own process on 127.0.0.1 (a free port), for
/// tests that drive the command-line tools against it.
///
/// A separate process keeps the tools' tests from serving HTTP on the test runner's own
/// threads while they wait for a tool to exit.
public final class SimulatorProcess: Sendable {
    /// The instance URL it announced.
    public let url: String
    /// The access token it accepts.
    public let accessToken: String

    private let process: Process

    /// Starts the simulator with `arguments` added to `--port 0`, and waits for its announcement.
    ///
    /// - Throws: `CocoaError` when the binary is missing or announces nothing readable.
    public init(_ arguments: [String] = []) throws {
        let product = try BuiltProduct("salesforce-simulator")
        let process = Process()
        process.executableURL = product.url
        process.arguments = ["--port", "0"] + arguments
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        var line: [UInt8] = []
        while line.last != UInt8(ascii: "\n") {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            line += chunk
        }
        guard let announced = try? JSONValue(parsing: line.dropLast()), let url = announced["url"]?.string,
            let accessToken = announced["accessToken"]?.string
        else {
            process.terminate()
            throw CocoaError(.fileReadCorruptFile, userInfo: [NSFilePathErrorKey: "salesforce-simulator announcement"])
        }
        self.process = process
        self.url = url
        self.accessToken = accessToken
    }

    /// The msync connection arguments for this simulator.
    public var connectionArguments: [String] {
        ["--instance-url", url, "--access-token", accessToken]
    }

    /// Stops the simulator and waits for it to exit.
    public func stop() {
        process.terminate()
        process.waitUntilExit()
    }
}
