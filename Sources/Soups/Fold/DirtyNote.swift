package import LosslessJSON

/// What the dirty set keeps with a dirty record: its *base*, the copy the record had when it
/// became dirty, and a fold rule's open conflict on it (decision 0326).
///
/// The base is the stored record a local change first replaced: a clean record is the server's
/// copy as last fetched or uploaded, so the base is what every local edit started from, which a
/// three-way merge needs. It lives as long as the record is dirty, so it costs space in
/// proportion to the dirty set, and it is part of the projection: compaction keeps it and a
/// rebuild derives it again. A record created locally, or made dirty by a version that kept no
/// base, has none.
package struct DirtyNote: Equatable, Sendable {
    /// The copy the record had when it became dirty, or `nil` when none is known.
    package var base: JSONValue?
    /// A fold rule's open conflict on the record (MobileSync's), kept until resolved or until
    /// the record is clean again.
    package var conflict: JSONValue?

    private static let baseMember = "base"
    private static let conflictMember = "conflict"

    /// A note with `base` and `conflict`.
    package init(base: JSONValue? = nil, conflict: JSONValue? = nil) {
        self.base = base
        self.conflict = conflict
    }

    /// Reads a stored note; an empty value is a note with neither.
    init(decoding bytes: [UInt8]) throws {
        guard !bytes.isEmpty else { return }
        let object = try SoupState.parse(bytes)
        base = object[Self.baseMember].flatMap { $0.isNull ? nil : $0 }
        conflict = object[Self.conflictMember].flatMap { $0.isNull ? nil : $0 }
    }

    /// The stored value: empty for a note with neither, so a record without a base costs what
    /// it always did.
    var encoded: [UInt8] {
        var members: [String: JSONValue] = [:]
        if let base { members[Self.baseMember] = base }
        if let conflict { members[Self.conflictMember] = conflict }
        return members.isEmpty ? [] : JSONValue.object(members).serialized()
    }

    /// The stored value of a note whose base is the record serialized as `recordBytes`, made
    /// without parsing it.
    static func encoded(baseBytes recordBytes: [UInt8]) -> [UInt8] {
        Array("{\"\(baseMember)\":".utf8) + recordBytes + Array("}".utf8)
    }
}
