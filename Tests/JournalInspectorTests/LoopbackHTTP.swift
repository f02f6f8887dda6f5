import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A minimal HTTP/1.1 client over a raw loopback socket, so a test can send any `Host` header
/// (URLSession sets its own) and read the answer exactly as sent.
enum LoopbackHTTP {
    struct Answer {
        var status: Int
        var headers: [String: String]
        var body: [UInt8]
        var text: String { String(decoding: body, as: UTF8.self) }
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// Sends `GET target` to 127.0.0.1:`port` with `host` as its `Host` header.
    ///
    /// The socket is read on a Dispatch thread, never on the cooperative pool: a test's server
    /// answers on that pool, which has as few threads as the machine has cores.
    static func get(port: Int, _ target: String, host: String? = nil) async throws -> Answer {
        try await exchange("GET", port: port, target, host: host, body: nil)
    }

    /// Sends `method target` with `body` as JSON to 127.0.0.1:`port` (the simulator's control
    /// plane).
    static func request(_ method: String, port: Int, _ target: String, body: [UInt8]) async throws -> Answer {
        try await exchange(method, port: port, target, host: nil, body: body)
    }

    private static func exchange(_ method: String, port: Int, _ target: String, host: String?, body: [UInt8]?)
        async throws -> Answer
    {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(
                    with: Result { try blockingSend(method, port: port, target, host: host, body: body) })
            }
        }
    }

    private static func blockingSend(_ method: String, port: Int, _ target: String, host: String?, body: [UInt8]?)
        throws -> Answer
    {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw Failure(description: "socket failed: \(errno)") }
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else { throw Failure(description: "connect to port \(port) failed: \(errno)") }
        let content =
            body.map { "Content-Type: application/json\r\nContent-Length: \($0.count)\r\n" } ?? ""
        let request =
            "\(method) \(target) HTTP/1.1\r\nHost: \(host ?? "127.0.0.1:\(port)")\r\n\(content)Connection: close\r\n\r\n"
        let bytes = Array(request.utf8) + (body ?? [])
        var sent = 0
        while sent < bytes.count {
            let count = bytes[sent...].withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { throw Failure(description: "send failed: \(errno)") }
            sent += count
        }
        var response: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            if count <= 0 { break }
            response += buffer[0..<count]
        }
        return try parse(response)
    }

    private static func parse(_ response: [UInt8]) throws -> Answer {
        let separator: [UInt8] = [13, 10, 13, 10]
        guard let end = (0..<max(0, response.count - 3)).first(where: { Array(response[$0..<$0 + 4]) == separator })
        else { throw Failure(description: "no HTTP head in \(response.count) bytes") }
        let head = String(decoding: response[..<end], as: UTF8.self).components(separatedBy: "\r\n")
        let statusParts = head[0].split(separator: " ")
        guard statusParts.count >= 2, let status = Int(statusParts[1]) else {
            throw Failure(description: "bad status line \(head[0])")
        }
        var headers: [String: String] = [:]
        for line in head.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(
                in: .whitespaces)
        }
        var body = Array(response[(end + 4)...])
        if headers["transfer-encoding"] == "chunked" { body = dechunk(body) }
        return Answer(status: status, headers: headers, body: body)
    }

    private static func dechunk(_ bytes: [UInt8]) -> [UInt8] {
        var output: [UInt8] = []
        var index = 0
        while index < bytes.count {
            guard let lineEnd = (index..<bytes.count - 1).first(where: { bytes[$0] == 13 && bytes[$0 + 1] == 10 }),
                let size = Int(String(decoding: bytes[index..<lineEnd], as: UTF8.self), radix: 16), size > 0
            else { break }
            output += bytes[(lineEnd + 2)..<min(bytes.count, lineEnd + 2 + size)]
            index = lineEnd + 2 + size + 2
        }
        return output
    }
}
