public import LosslessJSON

/// A `usersyncs.json` or `globalsyncs.json` document: the named syncs an app sets up at start.
///
/// ```json
/// {"syncs": [{"syncName": "accounts", "syncType": "syncDown", "soupName": "accounts",
///             "target": {"type": "soql", "query": "SELECT Id, Name FROM Account"},
///             "options": {"mergeMode": "OVERWRITE"}}]}
/// ```
///
/// Setting up creates each sync whose name is not taken yet (status NEW, not run) and leaves
/// existing ones alone. The whole document is checked before anything is created, so a bad
/// entry never leaves half a configuration behind (docs/decisions/0312-config-file-all-or-nothing.md).
public struct SyncsConfig: Hashable, Sendable {
    /// The syncs, in file order.
    public var entries: [Entry]

    /// The most entries one file may hold: far above any real app, low enough that a runaway
    /// generated file is refused instead of creating millions of syncs.
    public static let entryCountMax = 10_000

    /// One sync of the file.
    public struct Entry: Hashable, Sendable {
        /// The sync's unique name (`syncName`).
        public var name: String
        /// The soup it reads and writes.
        public var soupName: String
        /// Its target; the case gives `syncType`.
        public var target: SyncState.Target
        /// Its options.
        public var options: SyncOptions

        /// Creates an entry.
        public init(name: String, soupName: String, target: SyncState.Target, options: SyncOptions) {
            self.name = name
            self.soupName = soupName
            self.target = target
            self.options = options
        }
    }

    /// Creates a configuration.
    public init(entries: [Entry]) {
        self.entries = entries
    }

    /// Parses the file's bytes.
    ///
    /// - Throws: ``SyncError/Code/malformedConfig`` naming the entry (position and `syncName`)
    ///   and the field at fault; the first error found is reported.
    public init(bytes: some Collection<UInt8>) throws(SyncError) {
        let json: JSONValue
        do {
            json = try JSONValue(parsing: bytes)
        } catch {
            throw SyncError(.malformedConfig, "Syncs config is not JSON: \(error).", cause: error)
        }
        try self.init(json: json)
    }

    /// Parses a parsed document.
    ///
    /// - Throws: ``SyncError/Code/malformedConfig`` naming the entry and field at fault.
    public init(json: JSONValue) throws(SyncError) {
        let root = try JSONFields(json, what: "Syncs config", code: .malformedConfig)
        guard let syncs = try root.value("syncs").array else {
            throw SyncError(.malformedConfig, "Syncs config: \"syncs\" must be an array.")
        }
        guard syncs.count <= Self.entryCountMax else {
            throw SyncError(.malformedConfig, "Syncs config has \(syncs.count) entries; at most \(Self.entryCountMax).")
        }
        var entries: [Entry] = []
        var names: Set<String> = []
        for (index, sync) in syncs.enumerated() {
            let entry = try Self.entry(sync, index: index)
            guard names.insert(entry.name).inserted else {
                throw SyncError(
                    .malformedConfig, "Syncs config entry \(index) (\"\(entry.name)\"): \"syncName\" is used twice.")
            }
            entries.append(entry)
        }
        self.init(entries: entries)
    }

    /// The entries to create in a store: those whose name no existing sync has.
    ///
    /// A sync that already exists is left exactly as it is, even if the file now describes it
    /// differently, as Mobile SDK's loader does (docs/decisions/0305-config-never-alters-existing.md).
    public func entriesToCreate(isTaken: (String) -> Bool) -> [Entry] {
        entries.filter { !isTaken($0.name) }
    }

    /// The Mobile SDK document for these entries.
    public var json: JSONValue {
        let syncs: [JSONValue] = entries.map { entry in
            [
                "syncName": .string(entry.name), "soupName": .string(entry.soupName),
                "syncType": .string(entry.target.syncType.rawValue), "target": entry.target.json,
                "options": entry.options.json,
            ]
        }
        return ["syncs": .array(syncs)]
    }

    private static func entry(_ sync: JSONValue, index: Int) throws(SyncError) -> Entry {
        let label = "Syncs config entry \(index)" + (sync["syncName"]?.string.map { " (\"\($0)\")" } ?? "")
        do throws(SyncError) {
            let fields = try JSONFields(sync, what: label, code: .malformedConfig)
            let name = try fields.string("syncName")
            try SyncNames.checkAvailable(name, for: .syncDown) { _ in false }
            let typeText = try fields.string("syncType")
            let targetJSON = try fields.value("target")
            let optionsJSON = try fields.value("options")
            let target: SyncState.Target
            switch SyncType(rawValue: typeText) {
            case .syncDown: target = .syncDown(try SyncDownTargetDescriptor(json: targetJSON))
            case .syncUp: target = .syncUp(try SyncUpTargetDescriptor(json: targetJSON))
            case nil: throw SyncError(.malformedConfig, "\"syncType\" must be syncDown or syncUp, not \"\(typeText)\".")
            }
            return Entry(
                name: name, soupName: try fields.string("soupName"), target: target,
                options: try SyncOptions(json: optionsJSON))
        } catch {
            // Errors from the entry's own fields already name it; errors from the target or the
            // options get the entry's label in front.
            if error.code == .malformedConfig, error.message.hasPrefix(label) { throw error }
            throw SyncError(.malformedConfig, "\(label): \(error.message)", cause: error)
        }
    }
}

extension SyncState.Target {
    /// The sync type this target belongs to.
    var syncType: SyncType {
        switch self {
        case .syncDown: .syncDown
        case .syncUp: .syncUp
        }
    }
}
