import Foundation
import LosslessJSON

#if canImport(Glibc)
    import Glibc
#endif

/// Headless Chromium driven over the DevTools protocol on a pipe (`--remote-debugging-pipe`:
/// commands on its fd 3, answers on its fd 4, each message JSON ended by a NUL byte), so a test
/// can click, type and move the time slider in a real page.
///
/// Every call blocks; the browser test runs it on a Dispatch thread, since the inspector it
/// talks to answers on the cooperative pool.
final class DevToolsBrowser {
    /// How long one command or one wait for a page may take.
    static let waitLimitSeconds = 90.0
    /// How long one check of a wait may take before it is asked again: an evaluation sent while
    /// the page navigates may never be answered, and one lost answer must not use up the wait.
    static let checkLimitSeconds = 5.0

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    private let pid: pid_t
    private let commands: Int32
    private let answers: Int32
    private var buffer: [UInt8] = []
    private var nextId = 1
    private var session: String?

    init(chromium: URL, profile: URL) throws {
        var commandPipe: [Int32] = [0, 0]
        var answerPipe: [Int32] = [0, 0]
        guard pipe(&commandPipe) == 0, pipe(&answerPipe) == 0 else {
            throw Failure(description: "pipe failed: \(errno)")
        }
        // Only the two ends dup2-ed to fds 3 and 4 may reach the browser; the dup2 clears the flag.
        for descriptor in commandPipe + answerPipe { _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, commandPipe[0], 3)
        posix_spawn_file_actions_adddup2(&actions, answerPipe[1], 4)
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        // No sandbox: tests run as root in CI containers, where Chromium's sandbox cannot start.
        let arguments = [
            chromium.path, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
            "--remote-debugging-pipe", "--user-data-dir=\(profile.path)", "about:blank",
        ]
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var child: pid_t = 0
        let spawned = posix_spawn(&child, chromium.path, &actions, nil, &argv, environ)
        close(commandPipe[0])
        close(answerPipe[1])
        guard spawned == 0 else {
            close(commandPipe[1])
            close(answerPipe[0])
            throw Failure(description: "cannot start \(chromium.path): \(spawned)")
        }
        pid = child
        commands = commandPipe[1]
        answers = answerPipe[0]
    }

    deinit {
        close(commands)
        close(answers)
        kill(pid, SIGKILL)
        var status: Int32 = 0
        waitpid(pid, &status, 0)
    }

    /// Opens `url` in a new page and attaches to it; later calls act on that page.
    func open(_ url: String) throws {
        let target = try call("Target.createTarget", ["url": .string(url)], inPage: false)
        guard let targetId = target["targetId"] else { throw Failure(description: "no target for \(url)") }
        let attached = try call(
            "Target.attachToTarget", ["targetId": targetId, "flatten": true], inPage: false)
        session = attached["sessionId"]?.string
    }

    /// The value of `expression` evaluated in the page (awaiting a promise it gives).
    func evaluate(_ expression: String, limitSeconds: Double = waitLimitSeconds) throws -> JSONValue {
        let answer = try call(
            "Runtime.evaluate",
            ["expression": .string(expression), "returnByValue": true, "awaitPromise": true],
            limitSeconds: limitSeconds)
        if let exception = answer["exceptionDetails"] {
            throw Failure(description: "\(expression) threw \(exception.serializedString)")
        }
        return answer["result"]?["value"] ?? .null
    }

    /// Waits until `condition` (a JavaScript expression) is true in the page.
    func wait(until condition: String) throws {
        let deadline = Date(timeIntervalSinceNow: Self.waitLimitSeconds)
        while Date() < deadline {
            let limit = min(Self.checkLimitSeconds, max(0.1, deadline.timeIntervalSinceNow))
            if (try? evaluate("Boolean(\(condition))", limitSeconds: limit)) == .bool(true) { return }
            usleep(50_000)
        }
        let text = (try? evaluate("document.body.innerText", limitSeconds: Self.checkLimitSeconds))?.string ?? ""
        throw Failure(description: "waited in vain for \(condition); the page says: \(text.prefix(400))")
    }

    /// The page's visible text.
    func text() throws -> String {
        try evaluate("document.body.innerText").string ?? ""
    }

    /// Sends a command and returns its answer. Answers to earlier commands that ran out of time
    /// are skipped by their ids.
    private func call(
        _ method: String, _ parameters: [String: JSONValue], inPage: Bool = true,
        limitSeconds: Double = waitLimitSeconds
    ) throws -> JSONValue {
        let deadline = Date(timeIntervalSinceNow: limitSeconds)
        let id = nextId
        nextId += 1
        var message: [String: JSONValue] = [
            "id": .number(JSONNumber(Int64(id))), "method": .string(method), "params": .object(parameters),
        ]
        if inPage, let session { message["sessionId"] = .string(session) }
        var bytes = JSONValue.object(message).serialized()
        bytes.append(0)
        var written = 0
        while written < bytes.count {
            let count = bytes[written...].withUnsafeBytes { write(commands, $0.baseAddress, $0.count) }
            guard count > 0 else { throw Failure(description: "cannot write to Chromium: \(errno)") }
            written += count
        }
        while true {
            let answer = try readMessage(before: deadline, method: method)
            guard answer["id"] == .number(JSONNumber(Int64(id))) else { continue }
            if let error = answer["error"] { throw Failure(description: "\(method): \(error.serializedString)") }
            return answer["result"] ?? .null
        }
    }

    private func readMessage(before deadline: Date, method: String) throws -> JSONValue {
        while true {
            if let end = buffer.firstIndex(of: 0) {
                let message = Array(buffer[..<end])
                buffer.removeSubrange(...end)
                return try JSONValue(parsing: message)
            }
            var descriptor = pollfd(fd: answers, events: Int16(POLLIN), revents: 0)
            let millisecondsLeft = Int32(max(0, deadline.timeIntervalSinceNow) * 1000)
            guard poll(&descriptor, 1, millisecondsLeft) == 1 else {
                throw Failure(description: "Chromium did not answer \(method) in time")
            }
            var chunk = [UInt8](repeating: 0, count: 65_536)
            let count = chunk.withUnsafeMutableBytes { read(answers, $0.baseAddress, $0.count) }
            guard count > 0 else { throw Failure(description: "Chromium closed its pipe") }
            buffer += chunk[0..<count]
        }
    }
}
