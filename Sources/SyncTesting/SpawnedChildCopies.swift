public import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// What a process being spawned holds of one file from its fork to its exec: a copy of every
/// descriptor this process has open on it.
///
/// A `flock` lock belongs to the open file that all copies of a descriptor share, so a lock whose
/// owner only closes its descriptor outlives it for as long as a spawned child has not reached its
/// exec. Holding these copies makes that moment last as long as a test needs, deterministically,
/// instead of racing a real spawn:
///
/// ```swift
/// let copies = try SpawnedChildCopies(of: store.appendingPathComponent("store.lock"))
/// journal = nil  // its lock must be free now, although `copies` still holds the file
/// ```
///
/// The copies are closed when the value is released, as the child's exec would close them.
public final class SpawnedChildCopies: Sendable {
    /// The copies: one per descriptor this process had open on the file.
    public let descriptors: [Int32]

    /// Copies every descriptor this process has open on `file`.
    ///
    /// - Throws: ``SpawnedChildCopiesError`` when `file` cannot be examined, the process's
    ///   descriptors cannot be listed, or a descriptor cannot be copied.
    public init(of file: URL) throws {
        var target = stat()
        guard stat(file.path, &target) == 0 else { throw SpawnedChildCopiesError.lastError("stat \(file.path)") }
        var copies: [Int32] = []
        // `/dev/fd` lists this process's descriptors on Linux (a link to /proc/self/fd) and macOS.
        for name in try FileManager.default.contentsOfDirectory(atPath: "/dev/fd") {
            // A copy may take the number of a descriptor listed but closed since (the listing's
            // own, for one): it is not copied again.
            guard let descriptor = Int32(name), !copies.contains(descriptor) else { continue }
            var status = stat()
            // A descriptor closed since the listing, or reused for another file, is no copy.
            guard fstat(descriptor, &status) == 0, status.st_dev == target.st_dev, status.st_ino == target.st_ino
            else { continue }
            let copy = fcntl(descriptor, F_DUPFD_CLOEXEC, 0)
            guard copy >= 0 else {
                let error = SpawnedChildCopiesError.lastError("copy descriptor \(descriptor)")
                for copy in copies { close(copy) }
                throw error
            }
            copies.append(copy)
        }
        descriptors = copies
    }

    deinit {
        for descriptor in descriptors { close(descriptor) }
    }
}
