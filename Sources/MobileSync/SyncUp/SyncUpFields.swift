import Determinism
import Foundation
package import LosslessJSON
package import SalesforceAPI
import Soups

/// The rules every sync-up target shares: which fields a record sends, its sObject type, its
/// external id, and which server answers are one record's failure rather than the sync's.
package enum SyncUpFields {
    /// The largest `maxBatchSize` of the composite batch target (a composite request's limit).
    package static let batchSizeMax = 25
    /// The largest `maxBatchSize` of the sObject Collections target.
    package static let collectionSizeMax = 200

    /// The batch size a descriptor asks for (``SyncUpTargetDescriptor/maxBatchSize``, or a
    /// custom target's `maxBatchSize` member), clamped to 1…`max`; `max` when it names none, as
    /// Mobile Sync does.
    package static func batchSize(_ descriptor: SyncUpTargetDescriptor, max: Int) -> Int {
        let member = descriptor.otherFields[SyncUpTargetDescriptor.maxBatchSizeKey]?.number?.int64Value
        guard let asked = descriptor.maxBatchSize.map(Int64.init) ?? member else { return max }
        return Int(Swift.min(Swift.max(asked, 1), Int64(max)))
    }

    /// Refuses a batch larger than the target takes.
    static func checkBatch(_ count: Int, max: Int) throws(SyncError) {
        guard count <= max else {
            throw SyncError(.invalidRecords, "Sync up got \(count) records for a batch of at most \(max)")
        }
    }

    /// `text` escaped for one segment of a URL path.
    static func pathSegment(_ text: String) -> String {
        var allowed = CharacterSet.urlPathAllowed
        allowed.remove("/")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
    }

    /// The `markerFieldName` a descriptor names, if any.
    package static func markerFieldName(_ descriptor: SyncUpTargetDescriptor) -> String? {
        descriptor.otherFields["markerFieldName"]?.string
    }

    /// The record's sObject type, from `attributes.type`.
    package static func objectType(of record: JSONValue) -> String? {
        guard let type = record["attributes"]?["type"]?.string, !type.isEmpty else { return nil }
        return type
    }

    /// The fields `record` sends for `action`: the target's create or update list, else the
    /// options' `fieldlist`, without the id and modification date fields. A present JSON null
    /// is sent (it clears the field); an absent field is left out. An empty list sends `{}`.
    /// A create also sends its local id in the target's marker field, when it names one.
    ///
    /// - Throws: ``SyncError/Code/malformedOptions`` "No fields specified" when neither the
    ///   target nor the options give a list (the sync ends FAILED, as in Mobile Sync).
    package static func fields(
        _ record: JSONValue, for action: SyncUpAction, target: some SyncUpTarget, fieldlist: [String]?
    ) throws(SyncError) -> [String: JSONValue] {
        let names = (action == .create ? target.createFieldlist : target.updateFieldlist) ?? fieldlist
        var fields = try Self.fields(
            record, names: names, idFieldName: target.idFieldName,
            modificationDateFieldName: target.modificationDateFieldName)
        if action == .create, let marker = target.markerFieldName, let localId = record[target.idFieldName]?.string {
            fields[marker] = .string(localId)
        }
        return fields
    }

    /// The values of `names` in `record`, without the id and modification date fields; a
    /// present null is kept, an absent field left out.
    ///
    /// - Throws: ``SyncError/Code/malformedOptions`` "No fields specified" when `names` is `nil`.
    static func fields(
        _ record: JSONValue, names: [String]?, idFieldName: String, modificationDateFieldName: String
    ) throws(SyncError) -> [String: JSONValue] {
        guard let names else { throw SyncError(.malformedOptions, "No fields specified") }
        var fields: [String: JSONValue] = [:]
        for name in names where name != idFieldName && name != modificationDateFieldName {
            if let value = record.projected(name) { fields[name] = value }
        }
        return fields
    }

    /// The external id to upsert a locally created record by: the target names a field and the
    /// record has a value there that is not a local id.
    package static func externalId(of record: JSONValue, target: some SyncUpTarget) -> (field: String, value: String)? {
        externalId(of: record, field: target.externalIdFieldName)
    }

    /// The value of `field` in a locally created record when it can be upserted by it: present,
    /// not null, and not a local id.
    static func externalId(of record: JSONValue, field: String?) -> (field: String, value: String)? {
        guard let field, let value = record.projected(field, keepsNull: false) else { return nil }
        let text = value.string ?? value.serializedString
        guard !text.hasPrefix("local_") else { return nil }
        return (field, text)
    }

    /// A record without `attributes.type` cannot be sent; it keeps its changes and says why.
    package static var missingObjectType: SyncUpOutcome {
        .failed(error: [
            "errorCode": "MISSING_OBJECT_TYPE",
            "message": "The record has no attributes.type, so sync up cannot tell which sObject it is.",
            "fields": ["attributes.type"],
        ])
    }

    /// A record that needs a server id for its action but has none.
    package static func missingId(_ idFieldName: String) -> SyncUpOutcome {
        .failed(error: [
            "errorCode": "MISSING_ID",
            "message": .string("The record has no \(idFieldName), so sync up cannot name it to the server."),
            "fields": [.string(idFieldName)],
        ])
    }

    /// The server's refusal of one record, or `nil` when `error` must fail the whole sync.
    ///
    /// A 4xx answer with Salesforce's error body refuses the record; 404 means the record does
    /// not exist there. Anything else (no answer, 5xx after the client's retries, a revoked
    /// session) leaves the result unknown, so it is not swallowed.
    package static func refusal(_ error: SalesforceError) -> (isNotFound: Bool, error: JSONValue)? {
        guard error.code == .server, let status = error.httpStatus, (400..<500).contains(status) else { return nil }
        let body = (try? JSONValue(parsing: error.body)) ?? .string(String(decoding: error.body, as: UTF8.self))
        let notFound = status == 404 || notFoundCodes.contains(error.errorCode ?? "")
        return (notFound, body)
    }

    /// What a refusal means for a record: a delete of a record the server does not have is
    /// done; an update of one is ``SyncUpOutcome/notFound``; anything else (including a create
    /// answered 404, which names an unknown sObject type) is a failure of that record.
    static func outcome(ofRefusal error: JSONValue, isNotFound: Bool, action: SyncUpAction) -> SyncUpOutcome {
        switch (action, isNotFound) {
        case (.delete, true): .deleted
        case (.update, true): .notFound
        default: .failed(error: error)
        }
    }

    /// The error codes that mean "no such record" in a composite or collection answer.
    package static let notFoundCodes: Set<String> = ["ENTITY_IS_DELETED", "INVALID_CROSS_REFERENCE_KEY"]

    /// Whether a local modification time is not older than the server's, per Mobile Sync's
    /// `isNewerThanServer`: a missing local time wins; a deleted server copy only loses to a
    /// local delete; an unknown server time (the fetch failed) loses.
    package static func isNewer(local record: JSONValue, dateField: String, server: ServerCopy) -> Bool {
        let locallyDeleted = SyncUpAction(record: record) == .delete
        guard let localText = record[dateField]?.string, let localTime = WallTime(iso8601: localText) else {
            return true
        }
        switch server {
        case .deleted: return locallyDeleted
        case .unknown: return false
        case .modified(let text):
            guard let serverTime = WallTime(iso8601: text) else { return false }
            return localTime >= serverTime
        }
    }

    /// What the server knows of a record, for LEAVE_IF_CHANGED.
    package enum ServerCopy: Hashable, Sendable {
        /// It exists and was last modified at this time (Salesforce's text).
        case modified(String)
        /// It does not exist (deleted or never created).
        case deleted
        /// Its state could not be read.
        case unknown
    }
}
