import ArgumentParser
import Determinism
import Foundation
import Logging
import LosslessJSON
import SalesforceSimulator

/// Serves a Salesforce-compatible REST API on loopback for development, tests and the demo.
@main
struct SalesforceSimulatorCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "salesforce-simulator",
        abstract: "Serve a local Salesforce-compatible REST API (see docs/simulator.md).",
        discussion: """
            Prints one JSON line {"url": …, "accessToken": …} once listening, then serves until killed.
            """)

    @Option(help: "The address to bind.") var host = "127.0.0.1"
    @Option(help: "The port; 0 picks a free one.") var port = 0
    @Option(help: "A data file (format in docs/simulator.md); the bundled demo org when omitted.") var data: String?
    @Option(help: "The access token to accept; a seeded token when omitted.") var accessToken: String?
    @Option(help: "The refresh token the token endpoint accepts.") var refreshToken = "simulator-refresh-token"
    @Option(help: "The probability (0…1) that a request answers 503.") var faultRate: Double = 0
    @Option(help: "Seeds tokens and faults.") var seed: UInt64 = 0
    @Option(help: "Latency added to every request, in milliseconds.") var latencyMs = 0
    @Flag(help: "Use the logical clock (one second per write from 2024-01-01) instead of the system clock.")
    var logicalClock = false
    @Option(help: "Write the demo data file to this path and exit.") var writeDemoData: String?

    func validate() throws {
        guard (0...1).contains(faultRate) else { throw ValidationError("--fault-rate must be between 0 and 1.") }
        guard (0...65535).contains(port) else { throw ValidationError("--port must be between 0 and 65535.") }
        guard latencyMs >= 0 else { throw ValidationError("--latency-ms must not be negative.") }
    }

    func run() async throws {
        if let writeDemoData {
            try Data(DemoOrg.generate().serialized()).write(to: URL(fileURLWithPath: writeDemoData))
            return
        }
        LoggingSystem.bootstrap { StreamLogHandler.standardError(label: $0) }
        var logger = Logger(label: "salesforce-simulator")
        logger.logLevel = .warning
        let orgData =
            try data.map { try SimulatorData.load(contentsOf: URL(fileURLWithPath: $0)) } ?? SimulatorData.demo()
        let configuration = SalesforceSimulator.Configuration(
            data: orgData, accessToken: accessToken, refreshToken: refreshToken, seed: seed,
            clock: logicalClock
                ? .logical(start: SalesforceSimulator.Configuration.logicalStartDefault) : .wall(SystemWallClock()),
            faultPlan: FaultPlan(seed: seed, serverErrorRate: faultRate, latencyMs: latencyMs))
        let simulator = try SalesforceSimulator(configuration: configuration, logger: logger)
        let server = try await SimulatorServer.start(simulator, host: host, port: port, logger: logger)
        // Keys in the order DESIGN.md shows (url first); values escaped as JSON strings.
        let url = JSONValue.string(server.url.absoluteString).serializedString
        let token = JSONValue.string(simulator.accessToken).serializedString
        let line = "{\"url\": \(url), \"accessToken\": \(token)}\n"
        // Written unbuffered so a parent process reading the pipe sees the line at once.
        FileHandle.standardOutput.write(Data(line.utf8))
        try await server.wait()
    }
}
