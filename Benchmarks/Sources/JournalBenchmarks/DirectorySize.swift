import Foundation

/// The bytes files take on disk, for the store-size figures.
enum DirectorySize {
    /// The sizes of the files at or below `url` added up; 0 when nothing is there.
    static func bytes(under url: URL) throws -> Int {
        let manager = FileManager.default
        var isDirectory: ObjCBool = false
        guard manager.fileExists(atPath: url.path, isDirectory: &isDirectory) else { return 0 }
        guard isDirectory.boolValue else {
            return (try manager.attributesOfItem(atPath: url.path)[.size] as? NSNumber)?.intValue ?? 0
        }
        return try manager.contentsOfDirectory(at: url, includingPropertiesForKeys: nil).reduce(0) { total, file in
            total + (try bytes(under: file))
        }
    }

    /// `bytes` in MiB with one decimal, for the human-readable lines.
    static func mebibytes(_ bytes: Int) -> String {
        String(format: "%.1f MiB", Double(bytes) / 1_048_576)
    }
}
