public import Foundation
import HTTPTypes
import HummingbirdCore
public import Logging
public import MobileSync
import NIOCore
import NIOPosix
import ServiceLifecycle

/// Serves the read-only web inspector of a store on loopback until stopped.
///
/// ```swift
/// var generator = SystemRandomNumberGenerator()
/// let token = InspectorServer.makeToken(using: &generator)
/// let server = try await InspectorServer.start(store, storeName: path, token: token, logger: logger)
/// print(server.url)  // http://127.0.0.1:54321/timeline?token=…
/// await server.stop()
/// ```
///
/// Every request must carry the token (`token=` in its query) and name 127.0.0.1 or
/// localhost as its host, else it is answered 403. Pages are at `/timeline`, `/syncs`,
/// `/soups`, `/record`, `/conflicts`, `/state` and `/store`; their data at `/api/…`
/// (docs/inspector.md).
public final class InspectorServer: Sendable {
    /// The shortest token accepted, in characters: 128 bits in hexadecimal.
    public static let tokenLengthMin = 32

    /// The URL to open: the timeline page, with the token.
    public let url: URL
    /// The port the server is bound to.
    public let port: Int
    private let group: ServiceGroup
    private let task: Task<Void, any Error>

    private init(url: URL, port: Int, group: ServiceGroup, task: Task<Void, any Error>) {
        self.url = url
        self.port = port
        self.group = group
        self.task = task
    }

    /// A new random token: 32 hexadecimal digits (128 bits) from `generator`.
    ///
    /// - Parameter generator: the randomness; the tools pass `SystemRandomNumberGenerator`.
    /// - Returns: the token.
    public static func makeToken(using generator: inout some RandomNumberGenerator) -> String {
        (0..<2).map { _ in
            let text = String(generator.next(), radix: 16)
            return String(repeating: "0", count: 16 - text.count) + text
        }.joined()
    }

    /// Starts serving `store` and returns once the socket is bound.
    ///
    /// - Parameters:
    ///   - store: the store to inspect; it is only read.
    ///   - storeName: the store's path as the user named it, shown as `info` shows it.
    ///   - token: the secret every request must carry, at least ``tokenLengthMin`` letters
    ///     and digits.
    ///   - port: the port on 127.0.0.1; 0 picks a free one (read it from ``port``).
    ///   - logger: the server's logger.
    /// - Returns: the running server.
    /// - Throws: ``InspectorError/Code/invalidToken`` for a short or non-alphanumeric token,
    ///   ``InspectorError/Code/serverFailed`` when the port cannot be bound or the pages are
    ///   missing from the build.
    public static func start(
        _ store: SyncStore, storeName: String, token: String, port: Int = 0, logger: Logger
    ) async throws -> InspectorServer {
        guard token.count >= tokenLengthMin, token.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber) }) else {
            throw InspectorError(
                .invalidToken, "the token must be at least \(tokenLengthMin) ASCII letters and digits")
        }
        let inspector = Inspector(store: store, storeName: storeName, token: token, assets: try InspectorAssets())
        // Loopback only: the inspector shows a store's data, and nothing else may reach it.
        let host = "127.0.0.1"
        let (ports, continuation) = AsyncStream<Int>.makeStream()
        let server = try HTTPServerBuilder.http1().buildServer(
            configuration: ServerConfiguration(address: .hostname(host, port: port)),
            eventLoopGroup: MultiThreadedEventLoopGroup.singleton, logger: logger,
            responder: { request, writer, _ in
                let answer = inspector.respond(
                    to: InspectorRequest(
                        path: request.uri.path, query: request.uri.query ?? "", host: request.head.authority))
                var fields = HTTPFields()
                fields[.contentType] = answer.contentType
                // Answers change as the store grows and hold its data: never cache them.
                fields[.cacheControl] = "no-store"
                let response = Response(
                    status: HTTPResponse.Status(code: answer.status), headers: fields,
                    body: ResponseBody(byteBuffer: ByteBuffer(bytes: answer.body)))
                try await writer.write(response: response.head, body: response.body)
            },
            onServerRunning: { channel in
                continuation.yield(channel.localAddress?.port ?? port)
                continuation.finish()
            })
        // A service group, so `stop()` can shut the server down gracefully: a cancelled server
        // logs its cancellation as an error.
        let group = ServiceGroup(configuration: ServiceGroupConfiguration(services: [server], logger: logger))
        let task = Task {
            // Finishing the stream on exit unblocks `start` when binding fails.
            defer { continuation.finish() }
            try await group.run()
        }
        var iterator = ports.makeAsyncIterator()
        guard let bound = await iterator.next() else {
            let failure: (any Error)?
            if case .failure(let error) = await task.result { failure = error } else { failure = nil }
            throw InspectorError(
                .serverFailed, "cannot serve on \(host):\(port): \(failure.map { "\($0)" } ?? "stopped")",
                cause: failure)
        }
        guard let url = URL(string: "http://\(host):\(bound)/timeline?token=\(token)") else {
            task.cancel()
            throw InspectorError(.serverFailed, "cannot form a URL for \(host):\(bound)")
        }
        return InspectorServer(url: url, port: bound, group: group, task: task)
    }

    /// Stops serving and waits until the socket is closed.
    ///
    /// The shutdown is graceful: the listening socket closes at once, and answers being written
    /// are finished first.
    public func stop() async {
        await group.triggerGracefulShutdown()
        _ = await task.result
    }

    /// Waits until the server stops (for the tools, which serve until interrupted).
    ///
    /// - Throws: what stopped the server, if it failed.
    public func wait() async throws {
        try await task.value
    }
}
