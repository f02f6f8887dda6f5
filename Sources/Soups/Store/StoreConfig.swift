import LosslessJSON

/// The soups of a Mobile SDK `userstore.json` or `globalstore.json` file.
///
/// ```json
/// {"soups": [{"soupName": "accounts", "indexes": [{"path": "Id", "type": "string"}]}]}
/// ```
///
/// Apply it with ``SoupStore/register(_:)``: as in Mobile SDK, a soup that exists is skipped
/// and its indexes are not changed.
public struct StoreConfig: Hashable, Sendable {
    /// The soups, in file order, each with its name and index specs.
    public var soups: [(name: String, indexSpecs: [IndexSpec])] {
        entries.map { ($0.name, $0.indexSpecs) }
    }

    struct Entry: Hashable, Sendable {
        var name: String
        var indexSpecs: [IndexSpec]
    }

    let entries: [Entry]

    /// Parses the file's bytes.
    ///
    /// Unlike Mobile SDK, which logs a bad entry and goes on, a malformed file is refused
    /// whole, so that a typo never registers half the soups.
    /// - Throws: ``SoupError/Code/invalidConfig`` naming what is wrong.
    public init(parsing bytes: some Collection<UInt8>) throws(SoupError) {
        let json: JSONValue
        do {
            json = try JSONValue(parsing: bytes)
        } catch {
            throw SoupError(.invalidConfig, "the store config is not JSON: \(error)", cause: error)
        }
        guard let soups = json["soups"]?.array else {
            throw SoupError(.invalidConfig, "the store config has no \"soups\" array")
        }
        var entries: [Entry] = []
        for (position, soup) in soups.enumerated() {
            guard let name = soup["soupName"]?.string else {
                throw SoupError(.invalidConfig, "soup \(position) of the store config has no \"soupName\"")
            }
            guard let indexes = soup["indexes"]?.array else {
                throw SoupError(.invalidConfig, "soup '\(name)' of the store config has no \"indexes\" array")
            }
            var specs: [IndexSpec] = []
            for index in indexes {
                guard let path = index["path"]?.string, let typeName = index["type"]?.string,
                    let type = IndexType(rawValue: typeName)
                else {
                    throw SoupError(
                        .invalidConfig,
                        "an index of soup '\(name)' needs a \"path\" and a \"type\" of string, integer, floating, json1 or full_text: \(index)"
                    )
                }
                specs.append(IndexSpec(path: path, type: type))
            }
            entries.append(Entry(name: name, indexSpecs: specs))
        }
        self.entries = entries
    }
}

extension SoupStore {
    /// Registers the soups of a store config; soups that exist are skipped, unchanged.
    ///
    /// Every soup is checked before any is registered, and all are registered in one write
    /// transaction, so a bad soup registers none.
    /// - Returns: the names of the soups registered now.
    /// - Throws: what ``registerSoup(_:indexSpecs:)`` throws, for the first bad soup.
    @discardableResult
    public func register(_ config: StoreConfig) throws -> [String] {
        for entry in config.entries {
            try Self.validate(soupName: entry.name)
            try Self.validate(entry.indexSpecs, soup: entry.name)
        }
        return try mutate { writer, state in
            var registered: [String] = []
            for entry in config.entries where try state.catalogEntry(entry.name) == nil {
                try appendRegistration(entry.name, entry.indexSpecs, state: state, to: &writer)
                registered.append(entry.name)
            }
            return registered
        }
    }
}
