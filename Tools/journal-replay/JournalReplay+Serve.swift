import ArgumentParser
import Foundation
import JournalInspector
import Logging
import MobileSync

extension JournalReplay {
    struct Serve: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Serve a read-only web inspector of a store on 127.0.0.1 until interrupted.",
            discussion: """
                Prints the URL to open, which carries a random token: requests without it, or to \
                another host name than 127.0.0.1 or localhost, are refused. The pages follow entries \
                that an app appends while they are open. Encrypted stores take their key from \
                $SYNCJOURNAL_KEY_FILE or $SYNCJOURNAL_KEY, as the other commands do (docs/inspector.md).
                """)

        @Argument(help: storeArgumentHelp) var store: String
        @Option(help: "The port on 127.0.0.1 (default: a free one).") var port = 0

        func validate() throws {
            guard (0...65_535).contains(port) else { throw ValidationError("--port must be 0 to 65535") }
        }

        func run() async throws {
            let syncStore: SyncStore
            do {
                syncStore = try openSyncStore(store)
            } catch let error as ValidationError {
                throw error
            } catch {
                throw fail(error)
            }
            var generator = SystemRandomNumberGenerator()
            let server: InspectorServer
            do {
                server = try await InspectorServer.start(
                    syncStore, storeName: store, token: InspectorServer.makeToken(using: &generator), port: port,
                    logger: Logger(label: "journal-replay.serve"))
            } catch {
                throw fail(error)
            }
            // Written unbuffered: a script reading the URL from a pipe must not wait for more.
            FileHandle.standardOutput.write(Data("inspector: \(server.url.absoluteString)\n".utf8))
            try await server.wait()
        }
    }
}
