#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Why ``SpawnedChildCopies`` could not copy a file's descriptors.
public struct SpawnedChildCopiesError: Error, Sendable, CustomStringConvertible {
    /// What failed, with the system's reason.
    public let description: String

    static func lastError(_ operation: String) -> SpawnedChildCopiesError {
        SpawnedChildCopiesError(description: "cannot \(operation): \(String(cString: strerror(errno)))")
    }
}
