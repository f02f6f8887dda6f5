/// The rules for sync names: optional, never empty, unique across all syncs of a store.
package enum SyncNames {
    /// Checks that a new sync of `type` may take `name`.
    ///
    /// A `nil` name is always allowed (unnamed syncs are found by id).
    ///
    /// - Parameters:
    ///   - name: the requested name.
    ///   - type: the new sync's type, for the error text.
    ///   - isTaken: whether an existing sync already has a given name.
    /// - Throws: ``SyncError/Code/duplicateName`` with Mobile SDK's text, or
    ///   ``SyncError/Code/invalidName`` for an empty name.
    package static func checkAvailable(
        _ name: String?, for type: SyncType, isTaken: (String) -> Bool
    ) throws(SyncError) {
        guard let name else { return }
        // Mobile SDK stores "" as a real name; an empty name could then never be looked up by
        // `msync status NAME`, so it is refused (docs/decisions/0311-sync-names.md).
        guard !name.isEmpty else { throw SyncError(.invalidName, "A sync name must not be empty.") }
        if isTaken(name) { throw SyncError.duplicateName(name, type: type) }
    }
}
