public import Foundation
import Synchronization

/// A directory under the system's temporary directory, removed by ``remove()``.
///
/// Names combine the process id, a label and a counter, so parallel tests never collide and
/// no randomness is needed.
public struct TemporaryDirectory: Sendable {
    /// The directory's location. It exists once the value is created.
    public let url: URL

    private static let counter = Atomic<UInt64>(0)

    /// Creates a fresh, empty directory.
    public init(_ label: String = "test") throws {
        let serial = Self.counter.add(1, ordering: .relaxed).newValue
        url = FileManager.default.temporaryDirectory.appendingPathComponent(
            "syncjournal-\(label)-\(ProcessInfo.processInfo.processIdentifier)-\(serial)", isDirectory: true)
        try? FileManager.default.removeItem(at: url)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
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
