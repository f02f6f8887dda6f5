/// A handle to a named database (a key-ordered table) inside an ``Environment``.
///
/// Handles are cheap values, valid for the life of their environment. Keys are ordered as
/// raw bytes (`memcmp`), so encode numbers big-endian to keep numeric order.
public struct Database: Hashable, Sendable {
    /// The database's name in the environment.
    public let name: String
    let handle: UInt32
    let environmentIdentifier: ObjectIdentifier
    /// Whether the environment's ``ValueSealer`` seals this database's values.
    public let isSealed: Bool

    /// The same database with its values read and written as stored, past the environment's
    /// ``ValueSealer``: how a store converts values sealed one way (or not at all) into another.
    /// Reserved for EventJournal's migrations: do not use.
    package var unsealed: Database {
        Database(name: name, handle: handle, environmentIdentifier: environmentIdentifier, isSealed: false)
    }
}
