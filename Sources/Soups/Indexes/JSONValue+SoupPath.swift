public import LosslessJSON

extension JSONValue {
    /// The value at a dotted `path`, projected as SmartStore's `project` does it (through objects
    /// by key, through arrays element by element); `nil` when absent.
    ///
    /// Sync up uses it to pick the fields it sends, so a field list names fields the way index
    /// specs do.
    ///
    /// - Parameters:
    ///   - path: the dotted path, for example `Owner.Name`.
    ///   - keepsNull: whether a present JSON null is returned as `.null` (`true`) or counts as
    ///     absent (`false`, the index form).
    public func projected(_ path: String, keepsNull: Bool = true) -> JSONValue? {
        SoupPath.project(self, path, keepsNull: keepsNull)
    }
}
