import Foundation
import SyncTesting

#if canImport(Glibc)
    import Glibc
#endif

/// Debian's Chromium, run headless on one URL at a time: the DOM after the page's script ran,
/// or a screenshot. Every page state of the inspector is a URL, so this is enough to open,
/// filter and move through time.
struct HeadlessChromium {
    /// Where Debian's `chromium` package, and other distributions' names for it, install it.
    static let candidates = ["/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome"]
    /// How long the page's script may run, in the browser's virtual time.
    static let virtualTimeBudgetMilliseconds = 4000

    let url: URL

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// The browser named by `$CHROMIUM`, else the first candidate installed.
    ///
    /// - Throws: when none is installed: `Scripts/test` installs Debian's `chromium` first, so a
    ///   missing browser fails the test instead of skipping it.
    init() throws {
        let named = ProcessInfo.processInfo.environment["CHROMIUM"].map { [$0] } ?? []
        guard let path = (named + Self.candidates).first(where: FileManager.default.isExecutableFile(atPath:)) else {
            throw Failure(description: "no Chromium found (apt-get install -y chromium, as Scripts/test does)")
        }
        url = URL(fileURLWithPath: path)
    }

    /// The page's DOM once its script has run.
    func dumpDOM(_ page: String) async throws -> String {
        try await run(["--dump-dom", page])
    }

    /// Saves a 1280×900 screenshot of the page to `file`.
    func screenshot(_ page: String, to file: URL) async throws {
        _ = try await run(["--screenshot=\(file.path)", "--window-size=1280,900", "--hide-scrollbars", page])
        guard FileManager.default.fileExists(atPath: file.path) else {
            throw Failure(description: "Chromium wrote no screenshot of \(page)")
        }
    }

    /// How long one Chromium run may take before it is killed and tried again: headless
    /// Chromium sometimes never ends a `--virtual-time-budget` run (seen on a loaded 2-core
    /// machine), and a test must fail, not hang CI.
    static let runTimeLimit: Duration = .seconds(60)
    /// Runs per page before the test fails.
    static let attemptMax = 3

    private func run(_ arguments: [String]) async throws -> String {
        var failures: [String] = []
        for _ in 0..<Self.attemptMax {
            do {
                return try await runOnce(arguments)
            } catch let failure as Failure {
                failures.append(failure.description)
            }
        }
        throw Failure(description: failures.joined(separator: "; "))
    }

    private func runOnce(_ arguments: [String]) async throws -> String {
        let scratch = try TemporaryDirectory("chromium")
        defer { scratch.remove() }
        let output = scratch.appending("stdout")
        _ = FileManager.default.createFile(atPath: output.path, contents: nil)
        let process = Process()
        process.executableURL = url
        // No sandbox: tests run as root in CI containers, where Chromium's sandbox cannot start.
        process.arguments =
            [
                "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
                "--user-data-dir=\(scratch.appending("profile").path)",
                "--virtual-time-budget=\(Self.virtualTimeBudgetMilliseconds)",
            ] + arguments
        process.standardOutput = try FileHandle(forWritingTo: output)
        process.standardError = FileHandle.nullDevice
        try process.run()
        // Waiting without blocking a thread: the inspector answering Chromium runs in this process.
        let deadline = ContinuousClock.now + Self.runTimeLimit
        while process.isRunning, ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(20))
        }
        if process.isRunning {
            // Chromium's children share its process group only when it made one; kill it and
            // let its helpers follow it when their pipe to it closes.
            kill(process.processIdentifier, SIGKILL)
            await process.exited()
            throw Failure(description: "Chromium did not finish \(arguments) within \(Self.runTimeLimit)")
        }
        await process.exited()
        guard process.terminationStatus == 0 else {
            throw Failure(description: "Chromium exited \(process.terminationStatus) on \(arguments)")
        }
        return try String(contentsOf: output, encoding: .utf8)
    }
}
