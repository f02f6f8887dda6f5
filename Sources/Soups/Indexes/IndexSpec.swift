/// One index of a soup: a dotted path into each record and how its value is indexed.
///
/// The JSON form is Mobile SDK's: `{"path": "Name", "type": "string"}`.
public struct IndexSpec: Hashable, Sendable, CustomStringConvertible {
    /// The dotted path into each record (``SoupStore`` extracts it through arrays).
    public var path: String
    /// How the value at ``path`` is stored and ordered.
    public var type: IndexType

    /// Creates an index spec.
    public init(path: String, type: IndexType) {
        self.path = path
        self.type = type
    }

    /// The spec as `msync register-soup` takes it: `path:type`.
    public var description: String {
        "\(path):\(type)"
    }
}

/// How an index stores and orders values, as SmartStore's column types do.
///
/// Every type puts records without a value (missing or JSON null) first in ascending order.
public enum IndexType: String, Hashable, Sendable, CaseIterable, CustomStringConvertible {
    /// Text, ordered byte-wise on UTF-8. Numbers and booleans are stored as their text.
    case string
    /// 64-bit integers, ordered numerically; values that are not numbers are null.
    case integer
    /// Doubles, ordered numerically; values that are not numbers are null.
    case floating
    /// The JSON value itself, ordered as SQLite orders `json_extract`: numbers before text.
    case json1
    /// Text as for ``string``, also tokenized for ``QuerySpec/match(_:path:expression:orderPath:order:pageSize:)`` queries.
    case fullText = "full_text"
    /// Text as for ``string``, but the index holds only a keyed digest of it (HMAC-SHA256 under
    /// the store's index key), so the store's files do not reveal the values nor their order.
    /// It answers exact matches only; ranges, `like` and ordering by it are refused. Needs an
    /// encrypted store (EventJournal's `JournalOptions.encryption`). Not a Mobile SDK type.
    case hashed

    /// The type's name in Mobile SDK's JSON (`full_text` for ``fullText``).
    public var description: String {
        rawValue
    }
}
