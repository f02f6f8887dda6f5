import ArgumentParser
import Determinism
import EventJournal
import Foundation
import Logging
import MobileSync
import SalesforceAPI
import SalesforceSimulator
import Soups

extension MSync {
    /// A whole offline-first session against the embedded simulator, step by step.
    struct Demo: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Run a whole sync session against an embedded Salesforce simulator on 127.0.0.1.")

        /// `--store` names where the demo store goes (default `demo-store`); it is replaced if
        /// it holds an earlier demo.
        @OptionGroup var global: GlobalOptions

        func run() async throws {
            let root = URL(fileURLWithPath: global.store ?? "demo-store")
            try prepare(root)
            let logger = Logger.discarding
            let simulator = try reportingFailures {
                try SalesforceSimulator(
                    configuration: SalesforceSimulator.Configuration(data: try SimulatorData.demo(), seed: 2024),
                    logger: logger)
            }
            let server = try await reportingFailures { try await SimulatorServer.start(simulator, logger: logger) }
            do {
                try await DemoSession(root: root, simulator: simulator, server: server, logger: logger).run()
                await server.stop()
            } catch {
                await server.stop()
                throw fail(error)
            }
        }

        private func prepare(_ root: URL) throws {
            let marker = root.appendingPathComponent(".msync-demo")
            if FileManager.default.fileExists(atPath: root.path) {
                guard FileManager.default.fileExists(atPath: marker.path) else {
                    throw fail(UsageFailure("\(root.path) exists and is not a demo store; pass another --store"))
                }
                try FileManager.default.removeItem(at: root)
            }
            try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
            try Data().write(to: marker)
        }
    }
}
