public import Foundation

/// The bytes of every file under a store's directory, by path relative to it: what a test
/// compares before and after a command that must leave the store as it was.
///
/// LMDB's `lock.mdb` files are left out: readers record themselves there, so reading an
/// environment may change them (decision 0024).
///
/// ```swift
/// let before = try StoreFiles(of: store)
/// _ = try await replay.run(["info", store.path])
/// #expect(try StoreFiles(of: store).changedPaths(since: before) == [])
/// ```
public struct StoreFiles: Sendable, Equatable {
    /// The bytes of each file, by its path relative to the store's directory.
    public let bytesByPath: [String: Data]

    /// The names of files left out wherever they are: LMDB's lock files.
    public static let excludedNames: Set<String> = ["lock.mdb"]

    /// Reads every regular file under `directory`, except ``excludedNames``.
    /// - Throws: a Foundation error when a file cannot be read.
    public init(of directory: URL) throws {
        let root = directory.standardizedFileURL.path
        var bytesByPath: [String: Data] = [:]
        let files = FileManager.default
        for relative in (try files.subpathsOfDirectory(atPath: root)).sorted() {
            let path = root + "/" + relative
            var isDirectory: ObjCBool = false
            guard files.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue,
                !Self.excludedNames.contains(URL(fileURLWithPath: relative).lastPathComponent)
            else { continue }
            bytesByPath[relative] = try Data(contentsOf: URL(fileURLWithPath: path))
        }
        self.bytesByPath = bytesByPath
    }

    /// The paths of files that were added, removed or changed since `earlier`, sorted.
    public func changedPaths(since earlier: StoreFiles) -> [String] {
        Set(bytesByPath.keys).union(earlier.bytesByPath.keys)
            .filter { bytesByPath[$0] != earlier.bytesByPath[$0] }
            .sorted()
    }
}
