public import Foundation
import Synchronization

/// A directory under the system's temporary directory, removed by ``remove()``, and in any case
/// when the process exits normally.
///
/// Names combine the process id, a label and a counter, so parallel tests never collide and
/// no randomness is needed. A fixture that forgets ``remove()`` (or shares its directory with
/// another, so that neither can remove it early) still leaves nothing behind: a test run once
/// left thousands of directories in the system's temporary directory.
public struct TemporaryDirectory: Sendable {
    /// The directory's location. It exists once the value is created.
    public let url: URL

    private static let counter = Atomic<UInt64>(0)
    /// Every directory this process created, removed when it exits.
    private static let created = Mutex<[URL]>([])
    /// Registers the removal at exit, once per process.
    private static let removalAtExit: Void = {
        atexit { TemporaryDirectory.removeEveryCreated() }
    }()

    /// Creates a fresh, empty directory.
    public init(_ label: String = "test") throws {
        let serial = Self.counter.add(1, ordering: .relaxed).newValue
        url = FileManager.default.temporaryDirectory.appendingPathComponent(
            "syncjournal-\(label)-\(ProcessInfo.processInfo.processIdentifier)-\(serial)", isDirectory: true)
        try? FileManager.default.removeItem(at: url)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        Self.removalAtExit
        Self.created.withLock { [url] in $0.append(url) }
    }

    private static func removeEveryCreated() {
        for url in created.withLock({ $0 }) {
            try? FileManager.default.removeItem(at: url)
        }
    }

    /// A path inside the directory.
    public func appending(_ component: String) -> URL {
        url.appendingPathComponent(component)
    }

    /// Deletes the directory and everything in it.
    public func remove() {
        try? FileManager.default.removeItem(at: url)
    }
}
