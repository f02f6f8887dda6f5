public import Determinism
public import LosslessJSON

/// One fact in the journal: something that happened, stamped with its place and time.
///
/// Every local change, fetched server page, upload outcome and sync state change is an entry.
/// Entries are immutable once appended; everything else is a ``Projection`` of them.
public struct JournalEntry: Hashable, Sendable {
    /// The entry's place in the journal: 1 for the first entry, then each next integer.
    public var sequence: UInt64
    /// What kind of fact this is, for example `soup.record.created`.
    public var kind: Kind
    /// When it happened, from the journal's injected clock; never earlier than the entry before.
    public var timestamp: WallTime
    /// Small typed fields that projections and tools filter on (soup name, sync id, record id).
    public var header: [String: HeaderValue]
    /// The entry's data, stored exactly as given (server JSON byte for byte).
    public var payload: [UInt8]
    /// Whether ``payload`` is JSON text or opaque bytes.
    public var payloadFormat: PayloadFormat

    /// Creates an entry. Only the journal assigns sequences; use ``Draft`` to append.
    public init(
        sequence: UInt64, kind: Kind, timestamp: WallTime, header: [String: HeaderValue] = [:],
        payload: [UInt8] = [], payloadFormat: PayloadFormat = .binary
    ) {
        self.sequence = sequence
        self.kind = kind
        self.timestamp = timestamp
        self.header = header
        self.payload = payload
        self.payloadFormat = payloadFormat
    }

    /// The payload parsed as JSON.
    ///
    /// - Throws: `JSONParseError` when the payload is not JSON.
    public func jsonPayload() throws -> JSONValue {
        try JSONValue(parsing: payload)
    }
}

extension JournalEntry {
    /// The kind of an entry: a short dotted name owned by the module that appends it.
    ///
    /// Modules declare their kinds as static members:
    /// `extension JournalEntry.Kind { static let soupCreated: Self = "soup.created" }`.
    public struct Kind: RawRepresentable, Hashable, Comparable, Sendable, ExpressibleByStringLiteral,
        CustomStringConvertible
    {
        /// The name, 1 to ``JournalEntry/kindLengthMax`` bytes of UTF-8.
        public let rawValue: String

        public init(rawValue: String) {
            self.rawValue = rawValue
        }

        public init(stringLiteral value: String) {
            rawValue = value
        }

        public var description: String {
            rawValue
        }

        public static func < (lhs: Kind, rhs: Kind) -> Bool {
            lhs.rawValue < rhs.rawValue
        }
    }

    /// A typed header field value.
    public enum HeaderValue: Hashable, Sendable, CustomStringConvertible {
        /// Text, such as a soup name or a record id.
        case string(String)
        /// A signed integer, such as a soup entry id or a page number.
        case integer(Int64)
        /// A flag.
        case bool(Bool)

        /// The text when this is a string.
        public var string: String? {
            if case .string(let value) = self { return value }
            return nil
        }

        /// The integer when this is an integer.
        public var integer: Int64? {
            if case .integer(let value) = self { return value }
            return nil
        }

        /// The flag when this is a Boolean.
        public var bool: Bool? {
            if case .bool(let value) = self { return value }
            return nil
        }

        public var description: String {
            switch self {
            case .string(let value): value
            case .integer(let value): String(value)
            case .bool(let value): String(value)
            }
        }
    }

    /// How to read an entry's payload.
    public enum PayloadFormat: UInt8, Hashable, Sendable {
        /// Opaque bytes.
        case binary = 0
        /// UTF-8 JSON text, validated when appended.
        case json = 1
    }

    /// An entry that is not yet in the journal: everything but the sequence.
    public struct Draft: Hashable, Sendable {
        /// What kind of fact this is.
        public var kind: Kind
        /// When it happened; `nil` takes the journal clock's current time.
        public var timestamp: WallTime?
        /// Small typed fields.
        public var header: [String: HeaderValue]
        /// The data.
        public var payload: [UInt8]
        /// Whether the payload is JSON.
        public var payloadFormat: PayloadFormat
        /// Bytes this package serialized from a `JSONValue`: while `payload` is still exactly
        /// these bytes, appending skips parsing them again to check that they are JSON (a page
        /// of 2,000 records is megabytes). Not part of the draft's identity.
        private var serializedJSON: [UInt8]?

        /// Creates a draft with opaque or JSON payload bytes.
        public init(
            kind: Kind, timestamp: WallTime? = nil, header: [String: HeaderValue] = [:], payload: [UInt8] = [],
            payloadFormat: PayloadFormat = .binary
        ) {
            self.kind = kind
            self.timestamp = timestamp
            self.header = header
            self.payload = payload
            self.payloadFormat = payloadFormat
        }

        /// Creates a draft whose payload is `json`, serialized deterministically.
        public init(kind: Kind, timestamp: WallTime? = nil, header: [String: HeaderValue] = [:], json: JSONValue) {
            self.init(kind: kind, timestamp: timestamp, header: header, serializedJSON: json.serialized())
        }

        /// Creates a draft whose JSON payload the caller built from `JSONValue` serializations,
        /// so it is JSON by construction. Only this package's modules may vouch for that.
        package init(
            kind: Kind, timestamp: WallTime? = nil, header: [String: HeaderValue] = [:], serializedJSON: [UInt8]
        ) {
            self.init(kind: kind, timestamp: timestamp, header: header, payload: serializedJSON, payloadFormat: .json)
            self.serializedJSON = serializedJSON
        }

        /// Whether the payload is still the serialization the draft was made from. `Array`'s
        /// `==` answers in O(1) when both share one buffer, which they do unless `payload`
        /// was replaced.
        var isSerializedJSON: Bool {
            payloadFormat == .json && serializedJSON.map { $0 == payload } == true
        }

        public static func == (left: Draft, right: Draft) -> Bool {
            left.kind == right.kind && left.timestamp == right.timestamp && left.header == right.header
                && left.payload == right.payload && left.payloadFormat == right.payloadFormat
        }

        public func hash(into hasher: inout Hasher) {
            hasher.combine(kind)
            hasher.combine(timestamp)
            hasher.combine(header)
            hasher.combine(payload)
            hasher.combine(payloadFormat)
        }
    }

    /// The longest kind name, in UTF-8 bytes.
    public static let kindLengthMax = 255
    /// The longest header field name, in UTF-8 bytes.
    public static let headerNameLengthMax = 255
    /// The most header fields one entry may carry.
    public static let headerFieldCountMax = 1024
    /// The largest payload, in bytes. Server pages are far smaller; the limit keeps one bad
    /// input from filling the map.
    public static let payloadSizeMaxBytes = 256 << 20
}
