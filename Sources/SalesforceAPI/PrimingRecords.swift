public import LosslessJSON

/// One page of `GET connect/briefcase/priming-records`: the ids of the records the user's
/// briefcases prime, and the token of the next page.
public struct PrimingRecords: Sendable, Hashable {
    /// One primed record.
    public struct Record: Sendable, Hashable {
        /// The record id.
        public var id: String
        /// Its `systemModstamp` as the server wrote it (`2024-05-01T12:34:56.000Z`).
        public var systemModstamp: String

        /// Creates a primed record.
        public init(id: String, systemModstamp: String) {
            self.id = id
            self.systemModstamp = systemModstamp
        }
    }

    /// The primed records by sObject type, record types merged, in the server's order.
    public var recordsByType: [String: [Record]]
    /// The sObject types in the order the response names them.
    public var types: [String]
    /// The token of the next page; `nil` on the last.
    public var relayToken: String?
    /// The rules the server could not apply (`[{"ruleId": …}]`): when any, the ids are
    /// incomplete.
    public var ruleErrors: [JSONValue]
    /// The records of every page, when the server says (`stats.recordCountTotal`).
    public var recordCountTotal: Int?

    /// Creates a page.
    public init(
        recordsByType: [String: [Record]], types: [String], relayToken: String?, ruleErrors: [JSONValue] = [],
        recordCountTotal: Int? = nil
    ) {
        self.recordsByType = recordsByType
        self.types = types
        self.relayToken = relayToken
        self.ruleErrors = ruleErrors
        self.recordCountTotal = recordCountTotal
    }

    /// Reads a response body.
    ///
    /// - Throws: ``SalesforceError/Code/invalidResponse`` when `primingRecords` is not an object
    ///   of types to record types to lists of `{"id", "systemModstamp"}`.
    public init(json: JSONValue) throws(SalesforceError) {
        guard let byType = json["primingRecords"]?.object else {
            throw SalesforceError(
                code: .invalidResponse, message: "The priming records response has no primingRecords.")
        }
        var recordsByType: [String: [Record]] = [:]
        for (type, byRecordType) in byType {
            guard let lists = byRecordType.object else {
                throw SalesforceError(code: .invalidResponse, message: "Priming records of \(type) are not an object.")
            }
            var records: [Record] = []
            // Record types are merged in the order of their ids, so a page reads the same each time.
            for recordType in lists.keys.sorted() {
                for element in lists[recordType]?.array ?? [] {
                    guard let id = element["id"]?.string else {
                        throw SalesforceError(code: .invalidResponse, message: "A primed \(type) record has no id.")
                    }
                    records.append(Record(id: id, systemModstamp: element["systemModstamp"]?.string ?? ""))
                }
            }
            recordsByType[type] = records
        }
        self.init(
            recordsByType: recordsByType, types: byType.keys.sorted(), relayToken: json["relayToken"]?.string,
            ruleErrors: json["ruleErrors"]?.array ?? [],
            recordCountTotal: json["stats"]?["recordCountTotal"]?.number?.int64Value.map { Int(clamping: $0) })
    }

    /// How many records the page names.
    public var recordCount: Int {
        recordsByType.values.reduce(0) { $0 + $1.count }
    }
}
