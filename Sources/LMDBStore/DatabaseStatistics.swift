/// The size of one database, as ``Transaction/statistics(_:)`` reads it.
public struct DatabaseStatistics: Hashable, Sendable {
    /// How many key/value pairs it holds.
    public var entryCount: Int
    /// The bytes of its branch, leaf and overflow pages: what it takes in the file.
    public var pageBytes: Int
}
