/// What ``Journal/verify(scratchDirectory:checkpointDirectory:checkpointInterval:progress:)`` found.
public struct VerificationReport: Sendable, Hashable {
    /// The last sequence checked.
    public var lastSequence: UInt64
    /// The first difference in each projection database (and in the kind counts) between the
    /// stored state and a rebuild from the entries. Empty when they agree.
    public var divergences: [Divergence]

    /// Whether the stored projections equal a rebuild, byte for byte.
    public var isConsistent: Bool {
        divergences.isEmpty
    }

    /// The first key at which one database differs from its rebuild.
    public struct Divergence: Sendable, Hashable, CustomStringConvertible {
        /// The database, for example `soups.records`, or `journal.kinds` for the kind counts.
        public var database: String
        /// The first key that differs.
        public var key: [UInt8]
        /// The stored value, or `nil` when the key is missing from the stored state.
        public var stored: [UInt8]?
        /// The rebuilt value, or `nil` when the rebuild has no such key.
        public var rebuilt: [UInt8]?
        /// How the stored database is damaged in its structure at `key`, when it is: then the
        /// values may agree, but lookups by key answer wrongly.
        public var structure: StructuralDamage?

        /// Damage to a database's B-tree that a walk in key order alone does not show.
        public enum StructuralDamage: String, Sendable, Hashable {
            /// A walk in key order meets the key after a greater or equal one.
            case outOfOrder
            /// A lookup of a key the walk met does not find it: a branch page is damaged.
            case unreachable
        }

        /// Creates a divergence.
        public init(
            database: String, key: [UInt8], stored: [UInt8]?, rebuilt: [UInt8]?, structure: StructuralDamage? = nil
        ) {
            self.database = database
            self.key = key
            self.stored = stored
            self.rebuilt = rebuilt
            self.structure = structure
        }

        public var description: String {
            let keyText = String(validating: key, as: UTF8.self).map { "\"\($0)\"" } ?? key.hexString
            switch structure {
            case .outOfOrder?:
                return "\(database): key \(keyText) is out of order: a page of the stored state is damaged"
            case .unreachable?:
                return
                    "\(database): a lookup does not find key \(keyText): a branch page of the stored state is damaged"
            case nil:
                break
            }
            switch (stored, rebuilt) {
            case (nil, _): return "\(database): key \(keyText) is missing from the stored state"
            case (_, nil): return "\(database): key \(keyText) is stored but a rebuild does not produce it"
            default: return "\(database): key \(keyText) has a different value than a rebuild gives"
            }
        }
    }
}

extension [UInt8] {
    var hexString: String {
        "0x"
            + map { byte in
                let digits = String(byte, radix: 16)
                return digits.count == 1 ? "0" + digits : digits
            }.joined()
    }
}
