import ArgumentParser
import EventJournal
import Foundation
import JournalInspector
import Logging
import ToolSupport

extension MSync {
    struct Inspect: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Serve a read-only web inspector of the store on 127.0.0.1 until interrupted.",
            discussion: """
                The same inspector as journal-replay serve: prints the URL to open, which carries a \
                random token; the pages follow what other msync commands or an app append meanwhile \
                (docs/inspector.md).
                """)

        @Option(help: "The port on 127.0.0.1 (default: a free one).") var port = 0
        @OptionGroup var global: GlobalOptions

        func validate() throws {
            guard (0...65_535).contains(port) else { throw ValidationError("--port must be 0 to 65535") }
        }

        func run() async throws {
            // Inspecting reads: a mistyped --store is refused rather than created empty.
            try reportingFailures { try StoreLayout(directory: global.storeURL).requireStore() }
            let store = try openStore(global)
            var generator = SystemRandomNumberGenerator()
            let server = try await reportingFailures {
                try await InspectorServer.start(
                    store, storeName: global.storeURL.path, token: InspectorServer.makeToken(using: &generator),
                    port: port, logger: Logger(label: "msync.inspect"))
            }
            // Written unbuffered: a script reading the URL from a pipe must not wait for more.
            FileHandle.standardOutput.write(Data("inspector: \(server.url.absoluteString)\n".utf8))
            try await server.wait()
        }
    }
}
