import Synchronization

/// The digested dictionaries of one store's soups, by soup and dictionary id (decision 0030).
///
/// One per projection environment (it lives in `SoupDatabases`, which is resolved once per
/// environment), shared by the fold and every reader. A dictionary is digested the first time
/// a value names it and kept until the store closes; a soup has at most one today.
///
/// The fold of a `soup.dictionary` entry replaces what is cached under its key before the entry
/// commits. Should that write fail, the cache may hold a dictionary that no committed value
/// names, and the next fold of a dictionary with that key replaces it again; the frame's own
/// dictionary id (zstd writes it) turns any mismatch into a damaged-value error, never into
/// wrong JSON.
final class RecordDictionaryCache: Sendable {
    private struct Key: Hashable {
        var soupId: UInt32
        var id: UInt32
    }

    private let dictionaries = Mutex<[Key: RecordDictionary]>([:])

    /// An empty cache.
    init() {}

    /// The cached dictionary `id` of soup `soupId`, if any.
    func dictionary(soupId: UInt32, id: UInt32) -> RecordDictionary? {
        dictionaries.withLock { $0[Key(soupId: soupId, id: id)] }
    }

    /// Caches `dictionary` as soup `soupId`'s of its id, replacing any other.
    func remember(_ dictionary: RecordDictionary, soupId: UInt32) {
        dictionaries.withLock { $0[Key(soupId: soupId, id: dictionary.id)] = dictionary }
    }

    /// Forgets every dictionary of soup `soupId`.
    func forget(soupId: UInt32) {
        dictionaries.withLock { cached in
            cached = cached.filter { $0.key.soupId != soupId }
        }
    }
}
