public import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdCore
public import Logging
import NIOCore
import NIOPosix
import ServiceLifecycle

/// Serves a ``SalesforceSimulator`` over HTTP (Hummingbird 2) until stopped.
///
/// ```swift
/// let server = try await SimulatorServer.start(simulator, logger: logger)  // 127.0.0.1, a free port
/// print(server.url)                                                        // http://127.0.0.1:54321
/// await server.stop()
/// ```
public final class SimulatorServer: Sendable {
    /// The largest request body read, in bytes; larger requests are refused by the server.
    public static let requestBodySizeMax = 32 * 1024 * 1024

    /// The base URL clients use, e.g. `http://127.0.0.1:54321`.
    public let url: URL
    /// The simulator being served.
    public let simulator: SalesforceSimulator
    private let group: ServiceGroup
    private let task: Task<Void, any Error>

    private init(url: URL, simulator: SalesforceSimulator, group: ServiceGroup, task: Task<Void, any Error>) {
        self.url = url
        self.simulator = simulator
        self.group = group
        self.task = task
    }

    /// Starts serving and returns once the socket is bound.
    ///
    /// - Parameters:
    ///   - simulator: The simulator to serve.
    ///   - host: The address to bind; loopback by default.
    ///   - port: The port; 0 picks a free one (read it from ``url``).
    ///   - logger: The server's logger.
    /// - Throws: ``SimulatorError/Code/serverFailed`` when the server cannot bind.
    public static func start(
        _ simulator: SalesforceSimulator, host: String = "127.0.0.1", port: Int = 0, logger: Logger
    ) async throws -> SimulatorServer {
        let (ports, continuation) = AsyncStream<Int>.makeStream()
        // HummingbirdCore's server rather than Hummingbird's Application, which would replace
        // the `Date` of every answer with the wall clock: the simulator sends its own clock,
        // which a reSync reads to know when a second is settled (decision 0325).
        let server = try HTTPServerBuilder.http1().buildServer(
            configuration: ServerConfiguration(address: .hostname(host, port: port)),
            eventLoopGroup: MultiThreadedEventLoopGroup.singleton, logger: logger,
            responder: { request, writer, _ in
                let response = try await Self.respond(to: request, simulator: simulator)
                try await writer.write(response: response.head, body: response.body)
            },
            onServerRunning: { channel in
                continuation.yield(channel.localAddress?.port ?? port)
                continuation.finish()
            })
        // The server's tasks prefer their own executor, so a busy pool never delays an answer.
        // A service group, so `stop()` can shut the server down gracefully: a cancelled server
        // logs its cancellation as an error.
        let group = ServiceGroup(configuration: ServiceGroupConfiguration(services: [server], logger: logger))
        let task = Task(executorPreference: ServerExecutor(label: "SalesforceSimulator.server")) {
            // Finishing the stream on exit unblocks `start` when binding fails.
            defer { continuation.finish() }
            try await group.run()
        }
        var iterator = ports.makeAsyncIterator()
        guard let bound = await iterator.next() else {
            let failure: (any Error)?
            if case .failure(let error) = await task.result { failure = error } else { failure = nil }
            throw SimulatorError(
                code: .serverFailed,
                message: "Cannot serve on \(host):\(port): \(failure.map { "\($0)" } ?? "stopped")",
                cause: failure)
        }
        let urlHost = host.contains(":") ? "[\(host)]" : host
        guard let url = URL(string: "http://\(urlHost):\(bound)") else {
            task.cancel()
            throw SimulatorError(code: .serverFailed, message: "Cannot form a URL for \(host):\(bound)")
        }
        simulator.setInstanceURL(url.absoluteString)
        return SimulatorServer(url: url, simulator: simulator, group: group, task: task)
    }

    /// Stops serving and waits until the socket is closed.
    ///
    /// The shutdown is graceful: the listening socket closes at once, and answers being written
    /// are finished first.
    public func stop() async {
        await group.triggerGracefulShutdown()
        _ = await task.result
    }

    /// Waits until the server stops (for the executable, which serves until killed).
    public func wait() async throws {
        try await task.value
    }

    /// Thrown from a response body writer to make the server drop the connection mid-answer.
    private struct DroppedConnection: Error {}

    private static func respond(to request: Request, simulator: SalesforceSimulator) async throws -> Response {
        let body = try await request.body.collect(upTo: requestBodySizeMax)
        var headers: [String: String] = [:]
        for field in request.headers { headers[field.name.canonicalName] = field.value }
        let answer = await simulator.handle(
            SimulatorRequest(
                method: request.method.rawValue, path: request.uri.path, query: request.uri.query ?? "",
                headers: headers, body: Array(body.readableBytesView)))
        if answer.dropsConnection {
            // Failing the body after the head is sent makes the server close the connection, so
            // the client sees a transport failure instead of an answer.
            return Response(status: .ok, body: ResponseBody { _ in throw DroppedConnection() })
        }
        var fields = HTTPFields()
        for (name, value) in answer.headers {
            if let fieldName = HTTPField.Name(name) { fields[fieldName] = value }
        }
        return Response(
            status: HTTPResponse.Status(code: answer.status), headers: fields,
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: answer.body)))
    }
}
