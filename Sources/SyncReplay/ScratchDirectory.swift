import Foundation
import Synchronization

/// A scratch folder for the stores a replay or a simulation builds and throws away.
///
/// Recording a session, checking its projections and simulating a seed each work in a store of
/// their own, under the system's temporary directory, named by process and a counter so that
/// concurrent replays never share one (and no randomness is needed).
struct ScratchDirectory: Sendable {
    private static let serial = Atomic<UInt64>(0)

    /// The folder; it exists and is empty once the value is made.
    let url: URL

    init(_ purpose: String) throws {
        let number = Self.serial.add(1, ordering: .relaxed).newValue
        let name = "syncjournal-replay-\(ProcessInfo.processInfo.processIdentifier)-\(purpose)-\(number)"
        url = FileManager.default.temporaryDirectory.appendingPathComponent(name, isDirectory: true)
        if FileManager.default.fileExists(atPath: url.path) { try FileManager.default.removeItem(at: url) }
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    func appending(_ component: String) -> URL {
        url.appendingPathComponent(component)
    }

    /// Removes the folder; a failure leaves it for the system to clean, since nothing reads it again.
    func remove() {
        try? FileManager.default.removeItem(at: url)
    }
}
