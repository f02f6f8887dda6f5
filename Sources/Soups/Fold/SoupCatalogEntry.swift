import LosslessJSON

/// What the projection knows about one soup: its key prefix and its indexes.
///
/// Each index has a small id that stays the same for as long as the soup keeps its
/// (path, type) pair, so altering a soup moves no index entries of the indexes it keeps.
package struct SoupCatalogEntry: Hashable, Sendable {
    package var name: String
    /// The prefix of every key of this soup; never reused, so a dropped soup's keys can't
    /// collide with a new soup of the same name.
    package var soupId: UInt32
    var indexes: [CatalogIndex]
    /// Whether a put that makes a record dirty keeps the record it replaces as its base
    /// (`DirtyNote`): set once a MERGE_FIELDS sync writes the soup (decision 0326), so a store
    /// that never merges pays nothing and keeps the bytes it always had.
    package var keepsBases = false
    var nextIndexId: UInt16

    struct CatalogIndex: Hashable, Sendable {
        var spec: IndexSpec
        var id: UInt16
        /// The spec's path split on `.`, once per catalog read rather than once per record.
        let pathComponents: [String]

        init(spec: IndexSpec, id: UInt16) {
            self.spec = spec
            self.id = id
            pathComponents = SoupPath.components(spec.path)
        }
    }

    var specs: [IndexSpec] {
        indexes.map(\.spec)
    }

    /// The top-level members of a record that the fold of a save reads: the first component of
    /// every index path, the entry id, the modification date and the local flag. `nil` when an
    /// index has the empty path, which is the whole record.
    ///
    /// An array, not a set: the parser tests each member name against it, and comparing a
    /// name with a handful of short strings is cheaper than hashing it.
    package var foldedRecordMembers: [String]? {
        var members = [SoupStore.entryIdField, SoupStore.lastModifiedDateField, LocalFlags.local]
        for index in indexes {
            guard let first = index.pathComponents.first else { return nil }
            if !members.contains(first) { members.append(first) }
        }
        return members
    }

    /// Whether an index path begins with `_`, as every field a sync down adds to its records
    /// does: the fold then indexes each stored record whole rather than as fetched.
    package var indexesAddedFieldNames: Bool {
        indexes.contains { $0.spec.path.utf8.first == UInt8(ascii: "_") }
    }

    /// The first index on `path` (a soup may index one path with several types).
    func index(on path: String) -> CatalogIndex? {
        indexes.first { $0.spec.path == path }
    }

    var json: JSONValue {
        var members: [String: JSONValue] = [
            "soup": .string(name),
            "soupId": .number(JSONNumber(Int64(soupId))),
            "nextIndexId": .number(JSONNumber(Int64(nextIndexId))),
            "indexes": .array(
                indexes.map {
                    .object([
                        "path": .string($0.spec.path), "type": .string($0.spec.type.rawValue),
                        "id": .number(JSONNumber(Int64($0.id))),
                    ])
                }),
        ]
        if keepsBases { members["keepsBases"] = true }
        return .object(members)
    }

    init(name: String, soupId: UInt32, indexes: [CatalogIndex], nextIndexId: UInt16) {
        self.name = name
        self.soupId = soupId
        self.indexes = indexes
        self.nextIndexId = nextIndexId
    }

    init(json: JSONValue) throws(SoupError) {
        guard let name = json["soup"]?.string,
            let soupId = json["soupId"]?.number?.int64Value.flatMap(UInt32.init(exactly:)),
            let nextIndexId = json["nextIndexId"]?.number?.int64Value.flatMap(UInt16.init(exactly:)),
            let indexValues = json["indexes"]?.array
        else { throw SoupError(.storage, "a soup catalog entry is malformed: \(json)") }
        var indexes: [CatalogIndex] = []
        for value in indexValues {
            guard let path = value["path"]?.string, let type = value["type"]?.string.flatMap(IndexType.init),
                let id = value["id"]?.number?.int64Value.flatMap(UInt16.init(exactly:))
            else { throw SoupError(.storage, "an index of soup \(name) is malformed: \(value)") }
            indexes.append(CatalogIndex(spec: IndexSpec(path: path, type: type), id: id))
        }
        self.init(name: name, soupId: soupId, indexes: indexes, nextIndexId: nextIndexId)
        keepsBases = json["keepsBases"] == .bool(true)
    }

    /// The catalog entry after altering the indexes to `specs`: pairs kept keep their id.
    func altered(to specs: [IndexSpec]) -> SoupCatalogEntry {
        var next = nextIndexId
        let indexes = specs.map { spec -> CatalogIndex in
            if let kept = self.indexes.first(where: { $0.spec == spec }) { return kept }
            defer { next &+= 1 }
            return CatalogIndex(spec: spec, id: next)
        }
        var altered = SoupCatalogEntry(name: name, soupId: soupId, indexes: indexes, nextIndexId: next)
        altered.keepsBases = keepsBases
        return altered
    }
}
